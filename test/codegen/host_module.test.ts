// The host module renderer (src/codegen/module.ts, host_ts.ts) on a very long
// main(): a host loop of 10,000 steps that runs unrolled (it appends to a
// Python list) has hundreds of thousands of statements, which must render
// (a spread of the rendered lines into one push overflowed the stack).
import { describe, expect, it } from 'vitest';
import { generate } from '../../src/codegen/module.js';
import type { HStmt, HostProgram } from '../../src/ir/host.js';

describe('host module rendering', () => {
  it('renders a main() of 300,000 statements, in main() and in a nested block', () => {
    const print = (i: number): HStmt => ({ k: 'expr', e: { k: 'call', callee: 'rt.print', args: [{ k: 'lit', value: `${i}\n` }] } });
    const many = Array.from({ length: 300_000 }, (_, i) => print(i));
    const hp: HostProgram = {
      file: 'long.py',
      deviceCount: 1,
      programs: [],
      body: [...many, { k: 'if', test: { k: 'lit', value: true }, then: many, else: [] }],
      exports: [],
      unexported: [],
      scriptState: [],
    };
    const { host } = generate(hp, [], 'long');
    const lines = host.split('\n');
    expect(lines.filter((l) => l.includes('rt.print("299999\\n")'))).toHaveLength(2);
  });
});

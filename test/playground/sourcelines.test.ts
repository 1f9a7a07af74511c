// Run-time errors mapped back to Python lines: the host module's line source
// map decoded, and a stack frame in the host module resolved through it.
import { describe, expect, it } from 'vitest';
import { lineSourceMap } from '../../src/codegen/sourcemap.js';
import { decodeLineMap, pythonLineOfStack } from '../../playground/sourcelines.js';

describe('source lines of run-time errors', () => {
  const lines = [undefined, 3, 3, undefined, 7, 40, 2, undefined];
  const map = lineSourceMap('p.js', 'p.py', '', lines);

  it('decodes the line map the code generator writes', () => {
    expect(decodeLineMap(map)).toEqual(lines);
  });

  it("maps the first frame in the host module to its statement's Python line", () => {
    const url = 'blob:http://127.0.0.1:8080/0b6c2d6e-1c1f-4b7e-9d55-0d8f5d1f2a11';
    const stack = `TypeError: x is undefined\n    at read (blob:http://127.0.0.1:8080/aaaa:10:5)\n    at main (${url}:5:12)\n    at ${url}:2:1`;
    expect(pythonLineOfStack(stack, url, decodeLineMap(map))).toBe(7);
    // a generated line without a mapping takes the statement above it
    expect(pythonLineOfStack(`E\n    at f (${url}:4:1)`, url, decodeLineMap(map))).toBe(3);
    expect(pythonLineOfStack('E\n    at f (blob:other:4:1)', url, decodeLineMap(map))).toBeNull();
  });
});

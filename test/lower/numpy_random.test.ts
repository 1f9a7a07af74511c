// NumPy's legacy global RNG at compile time: bit-identical with real NumPy on vectors from
// scripts/gen-numpy-random-vectors.py, and the correctly rounded log it relies on.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile.js';
import { parse } from '../../src/parser/index.js';
import { newInterp } from '../../src/lower/index.js';
import type { Interp } from '../../src/lower/interp.js';
import { log, MT19937 } from '../../runtime/numpy/mt19937.js';
import { execBlock } from '../../src/lower/stmt.js';
import { NdArray, NpScalar, type PyValue } from '../../src/lower/values.js';

interface Encoded {
  t: string;
  v?: number | string | boolean | (number | string)[];
  dtype?: string;
  shape?: number[];
}
interface Case {
  name: string;
  src: string;
  results: { result: Encoded; cr?: Record<string, number> }[];
}
const vectors = JSON.parse(readFileSync(new URL('./numpy_random_vectors.json', import.meta.url), 'utf8')) as {
  cases: Case[];
  logs: { x: number; glibc: number; cr: number }[];
};

function run(src: string): Interp {
  const ip = newInterp({ file: 't.py' });
  execBlock(ip, parse(src).body, ip.globals);
  return ip;
}

/** A value in the vectors' encoding; floats stay numbers, compared with Object.is. */
function encode(v: PyValue): Encoded {
  if (v === null) return { t: 'None' };
  if (typeof v === 'bigint') return { t: 'int', v: v.toString() };
  if (typeof v === 'number') return { t: 'float', v };
  const el = (dtype: string, x: number): number | string => (dtype.startsWith('int') ? BigInt(x).toString() : x);
  if (v instanceof NdArray) return { t: 'ndarray', dtype: v.dtype, shape: v.shape, v: v.data.map((x) => el(v.dtype, x)) };
  if (v instanceof NpScalar) return { t: `np.${v.dtype}`, v: el(v.dtype, v.value) };
  throw new Error(`unexpected ${String(v)}`);
}

describe('np.random (legacy RandomState) against real NumPy', () => {
  let values = 0;
  for (const c of vectors.cases) {
    it(c.name, () => {
      const ip = run(c.src);
      c.results.forEach(({ result, cr }, k) => {
        const want = structuredClone(result);
        // int64 arrays hold JS numbers: beyond 2^53 they are NumPy's value rounded (Python ints stay exact)
        if (want.t === 'ndarray' && want.dtype === 'int64') want.v = (want.v as string[]).map((x) => BigInt(Number(BigInt(x))).toString());
        // where glibc's log is not correctly rounded (0.52 ulp), ours is: expect the correctly rounded draw
        if (cr) for (const [i, x] of Object.entries(cr)) Array.isArray(want.v) ? (want.v[Number(i)] = x) : (want.v = x);
        const got = encode(ip.globals.vars.get(`r${k}`)!);
        expect({ ...got, v: undefined }, `r${k}`).toEqual({ ...want, v: undefined });
        const gv = Array.isArray(got.v) ? got.v : [got.v];
        const wv = Array.isArray(want.v) ? want.v : [want.v];
        expect(gv.length, `r${k}`).toBe(wv.length);
        gv.forEach((x, i) => {
          if (!Object.is(x, wv[i])) expect.fail(`${c.name}: r${k}[${i}] = ${String(x)}, NumPy ${String(wv[i])}`);
        });
        values += gv.length;
      });
    });
  }
  it('covered the vectors', () => expect(values).toBeGreaterThan(5000));

  it('reproduces NUMERICS.md: seed(0), normal(size=5)', () => {
    const ip = run('import numpy as np\nnp.random.seed(0)\nx = np.random.normal(size=5)\n');
    expect((ip.globals.vars.get('x') as NdArray).data).toEqual([1.764052345967664, 0.4001572083672233, 0.9787379841057392, 2.240893199201458, 1.8675579901499675]);
  });

  it('reports NumPy errors', () => {
    const bad = (line: string, msg: RegExp) => expect(() => run(`import numpy as np\n${line}\n`), line).toThrow(msg);
    bad('np.random.seed(2**32)', /ValueError: Seed must be between 0 and 2\*\*32 - 1/);
    bad('np.random.seed(-1)', /ValueError: Seed must be between 0 and 2\*\*32 - 1/);
    bad('np.random.seed()', /needs a fixed seed/);
    bad('np.random.randint(5, 5)', /ValueError: low >= high/);
    bad('np.random.randint(-1)', /ValueError: high <= 0/);
    bad('np.random.randint(-2**63 - 1, 0)', /ValueError: low is out of bounds for int64/);
    bad('np.random.normal(0, -1)', /ValueError: scale < 0/);
    bad('np.random.normal(size=-1)', /ValueError: negative dimensions are not allowed/);
    bad('np.random.normal([0, 1, 2], size=(2, 2))', /ValueError: shape mismatch/);
    bad('np.random.uniform(-1e308, 1e308)', /OverflowError: Range exceeds valid bounds/);
    bad('np.random.rand(2.0)', /TypeError: 'float' object cannot be interpreted as an integer/);
    bad('np.random.choice(0)', /ValueError: a must be greater than 0 unless no samples are taken/);
    bad('np.random.choice(3, p=[0.5, 0.6, 0.1])', /ValueError: probabilities do not sum to 1/);
    bad('np.random.choice(3, size=5, replace=False)', /ValueError: Cannot take a larger sample than population/);
    bad('np.random.normal([0, 1, 2], [1, 2])', /Mismatch is between arg 0 with shape \(3,\) and arg 1 with shape \(2,\)\./);
    bad('np.random.normal(sigma=1)', /unexpected keyword argument 'sigma'/);
  });

  it('unrolls a host loop that draws, rather than drawing once', () => {
    const r = compile('import numpy as np\nnp.random.seed(0)\nfor i in range(3):\n    print(np.random.normal())\n', { file: 't.py' });
    expect(r.host).toContain('1.764052345967664');
    expect(r.host).toContain('0.4001572083672233');
    expect(r.host).toContain('0.9787379841057392');
  });

  it('generates the reference MT19937 stream', () => {
    // mt19937ar.c's own check: init_by_array({0x123, 0x234, 0x345, 0x456}) begins 1067595299 955945823 477289528
    const st = new MT19937();
    st.seedByArray([0x123, 0x234, 0x345, 0x456]);
    expect([st.nextUint32(), st.nextUint32(), st.nextUint32()]).toEqual([1067595299, 955945823, 477289528]);
  });
});

describe('correctly rounded log', () => {
  it('matches the correctly rounded log on every input', () => {
    let bad = 0;
    for (const { x, cr } of vectors.logs) if (!Object.is(log(x), cr)) bad++;
    expect(bad).toBe(0);
  });
  it('matches glibc where glibc rounds correctly, and differs by one ulp elsewhere', () => {
    const differ = vectors.logs.filter((l) => l.glibc !== l.cr);
    expect(differ.length).toBeGreaterThan(0);
    expect(differ.length).toBeLessThan(vectors.logs.length / 20);
    for (const { glibc, cr } of differ) expect(Math.abs(glibc - cr)).toBeLessThanOrEqual(Math.abs(cr) * 2 ** -52);
    for (const { x, glibc, cr } of vectors.logs) if (glibc === cr) expect(log(x)).toBe(glibc);
  });
  it('handles the special values', () => {
    expect(log(0)).toBe(-Infinity);
    expect(log(-0)).toBe(-Infinity);
    expect(log(Infinity)).toBe(Infinity);
    expect(log(-1)).toBeNaN();
    expect(log(NaN)).toBeNaN();
    expect(Object.is(log(1), 0)).toBe(true);
  });
});

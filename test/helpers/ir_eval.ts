// A reference evaluator for the array IR, for unit tests: runs a Func's
// primitives on plain row-major arrays in float64 (or, with `f32`, rounding
// every float result with Math.fround). Each simulated device has its own
// copy of every value, so collectives (psum, all_gather, psum_scatter,
// ppermute, all_to_all, axis_index) can be evaluated too. With a Func's
// axisEnv naming several axes (a device mesh), device d is mesh position d
// (row-major, axis 0 slowest) and a collective over some axes runs in the
// groups `replicaGroups` gives; axis_index over axes is the device's index
// in its group.
import type { DotDims } from '../../src/ir/primitives.js';
import { replicaGroups } from '../../src/ir/sharding.js';
import { castScalar } from '../../src/lower/arrays.js';
import { strides } from '../../src/passes/index_math.js';
import type { Atom, DType, Eqn, Func } from '../../src/ir/types.js';

export interface Arr {
  shape: number[];
  data: number[];
}

export interface EvalOptions {
  /** Round float results to float32 after every primitive. */
  f32?: boolean;
}

export const arr = (shape: number[], data: number[]): Arr => ({ shape, data });
const size = (s: readonly number[]): number => s.reduce((a, b) => a * b, 1);

/** Call `f(multiIndex, linear)` for each element of `shape` in row-major order. */
function each(shape: readonly number[], f: (idx: number[], lin: number) => void): void {
  const n = size(shape);
  const idx = shape.map(() => 0);
  for (let lin = 0; lin < n; lin++) {
    f(idx, lin);
    for (let d = shape.length - 1; d >= 0; d--) {
      if (++idx[d]! < shape[d]!) break;
      idx[d] = 0;
    }
  }
}

const at = (a: Arr, idx: readonly number[]): number => {
  const st = strides(a.shape);
  let lin = 0;
  idx.forEach((x, i) => (lin += x * st[i]!));
  return a.data[lin]!;
};

function erf(x: number): number {
  if (Math.abs(x) > 3) {
    // continued fraction for erfc (Lentz), accurate for large |x|
    const ax = Math.abs(x);
    let f = ax;
    for (let n = 60; n >= 1; n--) f = ax + n / 2 / f;
    const erfc = Math.exp(-ax * ax) / Math.sqrt(Math.PI) / f;
    return Math.sign(x) * (1 - erfc);
  }
  let sum = 0;
  let term = x;
  for (let n = 0; n < 80; n++) {
    sum += term / (2 * n + 1);
    term *= (-x * x) / (n + 1);
  }
  return (2 / Math.sqrt(Math.PI)) * sum;
}

function erfInv(y: number): number {
  if (y <= -1) return -Infinity;
  if (y >= 1) return Infinity;
  let x = (y * Math.sqrt(Math.PI)) / 2;
  for (let i = 0; i < 100; i++) {
    const step = (erf(x) - y) / ((2 / Math.sqrt(Math.PI)) * Math.exp(-x * x));
    x -= step;
    if (Math.abs(step) < 1e-17) break;
  }
  return x;
}

const UNARY: Record<string, (x: number) => number> = {
  sin: Math.sin,
  cos: Math.cos,
  tan: Math.tan,
  exp: Math.exp,
  exp2: (x) => 2 ** x,
  log: Math.log,
  log1p: Math.log1p,
  expm1: Math.expm1,
  tanh: Math.tanh,
  logistic: (x) => 1 / (1 + Math.exp(-x)),
  sqrt: Math.sqrt,
  rsqrt: (x) => 1 / Math.sqrt(x),
  erf,
  erf_inv: erfInv,
  neg: (x) => -x,
  sign: (x) => (x > 0 ? 1 : x < 0 ? -1 : x),
  abs: Math.abs,
  floor: Math.floor,
  ceil: Math.ceil,
  round: (x) => Math.sign(x) * Math.round(Math.abs(x)),
  copy: (x) => x,
  sharding_constraint: (x) => x,
  is_finite: (x) => (Number.isFinite(x) ? 1 : 0),
};

const BINARY: Record<string, (a: number, b: number) => number> = {
  add: (a, b) => a + b,
  sub: (a, b) => a - b,
  mul: (a, b) => a * b,
  div: (a, b) => a / b,
  rem: (a, b) => a % b,
  pow: Math.pow,
  max: (a, b) => (Number.isNaN(a) || Number.isNaN(b) ? NaN : Math.max(a, b)),
  min: (a, b) => (Number.isNaN(a) || Number.isNaN(b) ? NaN : Math.min(a, b)),
  atan2: Math.atan2,
  and: (a, b) => a & b,
  or: (a, b) => a | b,
  xor: (a, b) => a ^ b,
  eq: (a, b) => (a === b ? 1 : 0),
  ne: (a, b) => (a !== b ? 1 : 0),
  lt: (a, b) => (a < b ? 1 : 0),
  le: (a, b) => (a <= b ? 1 : 0),
  gt: (a, b) => (a > b ? 1 : 0),
  ge: (a, b) => (a >= b ? 1 : 0),
};

const cast = (v: number, dtype: DType, f32: boolean): number => (dtype === 'float32' && !f32 ? v : castScalar(v, dtype));

type Rule = (e: Eqn, ins: Arr[], device: number) => Arr[];

const map1 = (e: Eqn, x: Arr, f: (v: number) => number): Arr => ({ shape: [...e.outputs[0]!.aval.shape], data: x.data.map(f) });

function reduce(x: Arr, axes: number[], outShape: number[], init: number, f: (acc: number, v: number) => number): Arr {
  const data = new Array<number>(size(outShape)).fill(init);
  const ost = strides(outShape);
  each(x.shape, (idx, lin) => {
    let o = 0;
    let j = 0;
    idx.forEach((v, d) => {
      if (!axes.includes(d)) o += v * ost[j++]!;
    });
    data[o] = f(data[o]!, x.data[lin]!);
  });
  return { shape: outShape, data };
}

/** Per-device rules; collectives are handled by `evalSpmd`. */
const RULES: Record<string, Rule> = {
  integer_pow: (e, [x]) => [map1(e, x!, (v) => v ** (e.params['y'] as number))],
  convert_element_type: (e, [x]) => [map1(e, x!, (v) => v)],
  select_n: (e, [p, ...cases]) => {
    const shape = [...e.outputs[0]!.aval.shape];
    const data = cases[0]!.data.map((_, i) => {
      const w = p!.shape.length ? p!.data[i]! : p!.data[0]!;
      return cases[w]!.data[i]!;
    });
    return [{ shape, data }];
  },
  broadcast_in_dim: (e, [x]) => {
    const shape = [...e.outputs[0]!.aval.shape];
    const dims = e.params['broadcast_dimensions'] as number[];
    const data: number[] = [];
    each(shape, (idx) => data.push(at(x!, dims.map((d, i) => (x!.shape[i] === 1 ? 0 : idx[d]!)))));
    return [{ shape, data }];
  },
  reshape: (e, [x]) => [{ shape: [...e.outputs[0]!.aval.shape], data: [...x!.data] }],
  squeeze: (e, [x]) => [{ shape: [...e.outputs[0]!.aval.shape], data: [...x!.data] }],
  transpose: (e, [x]) => {
    const perm = e.params['permutation'] as number[];
    const shape = [...e.outputs[0]!.aval.shape];
    const data: number[] = [];
    each(shape, (idx) => {
      const src = new Array<number>(perm.length);
      perm.forEach((p, i) => (src[p] = idx[i]!));
      data.push(at(x!, src));
    });
    return [{ shape, data }];
  },
  rev: (e, [x]) => {
    const dims = e.params['dimensions'] as number[];
    const data: number[] = [];
    each(x!.shape, (idx) => data.push(at(x!, idx.map((v, d) => (dims.includes(d) ? x!.shape[d]! - 1 - v : v)))));
    return [{ shape: [...x!.shape], data }];
  },
  slice: (e, [x]) => {
    const start = e.params['start_indices'] as number[];
    const st = (e.params['strides'] as number[] | null) ?? start.map(() => 1);
    const shape = [...e.outputs[0]!.aval.shape];
    const data: number[] = [];
    each(shape, (idx) => data.push(at(x!, idx.map((v, d) => start[d]! + v * st[d]!))));
    return [{ shape, data }];
  },
  pad: (e, [x, v]) => {
    const config = e.params['padding_config'] as [number, number, number][];
    const shape = [...e.outputs[0]!.aval.shape];
    const data: number[] = [];
    each(shape, (idx) => {
      let inside = true;
      const src = idx.map((o, d) => {
        const [lo, , interior] = config[d]!;
        const j = o - lo;
        if (j < 0 || j % (interior + 1) !== 0 || j / (interior + 1) >= x!.shape[d]!) inside = false;
        return j / (interior + 1);
      });
      data.push(inside ? at(x!, src) : v!.data[0]!);
    });
    return [{ shape, data }];
  },
  concatenate: (e, xs) => {
    const dim = e.params['dimension'] as number;
    const shape = [...e.outputs[0]!.aval.shape];
    const data: number[] = [];
    each(shape, (idx) => {
      let i = idx[dim]!;
      let k = 0;
      while (i >= xs[k]!.shape[dim]!) i -= xs[k++]!.shape[dim]!;
      data.push(at(xs[k]!, idx.map((v, d) => (d === dim ? i : v))));
    });
    return [{ shape, data }];
  },
  iota: (e) => {
    const shape = [...e.outputs[0]!.aval.shape];
    const dim = e.params['dimension'] as number;
    const data: number[] = [];
    each(shape, (idx) => data.push(idx[dim]!));
    return [{ shape, data }];
  },
  reduce_sum: (e, [x]) => [reduce(x!, e.params['axes'] as number[], [...e.outputs[0]!.aval.shape], 0, (a, v) => a + v)],
  reduce_prod: (e, [x]) => [reduce(x!, e.params['axes'] as number[], [...e.outputs[0]!.aval.shape], 1, (a, v) => a * v)],
  reduce_max: (e, [x]) => [reduce(x!, e.params['axes'] as number[], [...e.outputs[0]!.aval.shape], -Infinity, Math.max)],
  reduce_min: (e, [x]) => [reduce(x!, e.params['axes'] as number[], [...e.outputs[0]!.aval.shape], Infinity, Math.min)],
  argmax: (e, [x]) => [argReduce(e, x!, (a, b) => a > b)],
  argmin: (e, [x]) => [argReduce(e, x!, (a, b) => a < b)],
  dot_general: (e, [a, b]) => {
    const dn = e.params['dimension_numbers'] as DotDims;
    const [lc, rc] = dn.contract;
    const [lb, rb] = dn.batch;
    const shape = [...e.outputs[0]!.aval.shape];
    const lfree = a!.shape.map((_, i) => i).filter((i) => !lc.includes(i) && !lb.includes(i));
    const rfree = b!.shape.map((_, i) => i).filter((i) => !rc.includes(i) && !rb.includes(i));
    const cshape = lc.map((d) => a!.shape[d]!);
    const data: number[] = [];
    each(shape, (idx) => {
      const li = new Array<number>(a!.shape.length);
      const ri = new Array<number>(b!.shape.length);
      lb.forEach((d, i) => (li[d] = idx[i]!));
      rb.forEach((d, i) => (ri[d] = idx[i]!));
      lfree.forEach((d, i) => (li[d] = idx[lb.length + i]!));
      rfree.forEach((d, i) => (ri[d] = idx[lb.length + lfree.length + i]!));
      let s = 0;
      each(cshape, (ci) => {
        lc.forEach((d, i) => (li[d] = ci[i]!));
        rc.forEach((d, i) => (ri[d] = ci[i]!));
        s += at(a!, li) * at(b!, ri);
      });
      data.push(s);
    });
    return [{ shape, data }];
  },
  dynamic_slice: (e, [x, ...starts]) => {
    const sizes = e.params['slice_sizes'] as number[];
    const st = starts.map((s, d) => Math.min(Math.max(s.data[0]!, 0), x!.shape[d]! - sizes[d]!));
    const data: number[] = [];
    each(sizes, (idx) => data.push(at(x!, idx.map((v, d) => v + st[d]!))));
    return [{ shape: [...sizes], data }];
  },
};
for (const [p, f] of Object.entries(UNARY)) RULES[p] = (e, [x]) => [map1(e, x!, f)];
for (const [p, f] of Object.entries(BINARY)) {
  RULES[p] = (e, [a, b]) => [{ shape: [...e.outputs[0]!.aval.shape], data: a!.data.map((v, i) => f(v, b!.data[i]!)) }];
}

function argReduce(e: Eqn, x: Arr, better: (a: number, b: number) => boolean): Arr {
  const axis = (e.params['axes'] as number[])[0]!;
  const shape = [...e.outputs[0]!.aval.shape];
  const data: number[] = [];
  each(shape, (idx) => {
    let best = 0;
    let bv = NaN;
    for (let i = 0; i < x.shape[axis]!; i++) {
      const full = [...idx];
      full.splice(axis, 0, i);
      const v = at(x, full);
      if (i === 0 || better(v, bv) || (Number.isNaN(v) && !Number.isNaN(bv))) {
        best = i;
        bv = v;
      }
    }
    data.push(best);
  });
  return { shape, data };
}

/** Collectives: from every device's operand (one group, in group order), every device's result. */
function collective(e: Eqn, xs: Arr[], out = 0): Arr[] {
  const n = xs.length;
  const shape = [...e.outputs[out]!.aval.shape];
  switch (e.prim) {
    case 'psum':
    case 'pmax':
    case 'pmin': {
      const f = (a: number, b: number): number => (e.prim === 'psum' ? a + b : e.prim === 'pmax' ? Math.max(a, b) : Math.min(a, b));
      const data = xs[0]!.data.map((_, i) => xs.map((x) => x.data[i]!).reduce(f));
      return xs.map(() => ({ shape, data: [...data] }));
    }
    case 'all_gather': {
      const d = e.params['all_gather_dimension'] as number;
      const tiled = e.params['tiled'] as boolean;
      const data: number[] = [];
      each(shape, (idx) => {
        const dev = tiled ? Math.floor(idx[d]! / xs[0]!.shape[d]!) : idx[d]!;
        const local = [...idx];
        if (tiled) local[d] = idx[d]! % xs[0]!.shape[d]!;
        else local.splice(d, 1);
        data.push(at(xs[dev]!, local));
      });
      return xs.map(() => ({ shape, data: [...data] }));
    }
    case 'psum_scatter': {
      const d = e.params['scatter_dimension'] as number;
      const tiled = e.params['tiled'] as boolean;
      const total = xs[0]!.data.map((_, i) => xs.reduce((s, x) => s + x.data[i]!, 0));
      const sum: Arr = { shape: xs[0]!.shape, data: total };
      return xs.map((_, dev) => {
        const data: number[] = [];
        each(shape, (idx) => {
          const src = [...idx];
          if (tiled) src[d] = dev * shape[d]! + idx[d]!;
          else src.splice(d, 0, dev);
          data.push(at(sum, src));
        });
        return { shape, data };
      });
    }
    case 'ppermute': {
      const perm = e.params['perm'] as [number, number][];
      const out = xs.map((): Arr => ({ shape, data: new Array<number>(size(shape)).fill(0) }));
      for (const [s, t] of perm) out[t] = { shape, data: [...xs[s]!.data] };
      return out.slice(0, n);
    }
    case 'all_to_all': {
      // tiled: block k of split_axis goes to device k; received blocks concatenate along concat_axis in device order
      const split = e.params['split_axis'] as number;
      const concat = e.params['concat_axis'] as number;
      const inConcat = xs[0]!.shape[concat]!;
      return xs.map((_, k) => {
        const data: number[] = [];
        each(shape, (idx) => {
          const src = Math.floor(idx[concat]! / inConcat);
          const local = [...idx];
          local[concat] = idx[concat]! % inConcat;
          local[split] = k * shape[split]! + idx[split]!;
          data.push(at(xs[src]!, local));
        });
        return { shape, data };
      });
    }
  }
  throw new Error(`ir_eval: no rule for collective '${e.prim}'`);
}

const COLLECTIVES = new Set(['psum', 'pmax', 'pmin', 'all_gather', 'psum_scatter', 'ppermute', 'all_to_all']);

/**
 * The device groups a collective over `names` runs in: from `f.axisEnv` as a
 * mesh when it names them and has one device per mesh position, else one
 * group of all devices (a one-axis pmap).
 */
function groupsOf(f: Func, names: readonly string[], devices: number): number[][] {
  const env = f.axisEnv ?? [];
  const total = env.reduce((n, a) => n * a.size, 1);
  if (env.length && total === devices && names.every((n) => env.some((a) => a.name === n))) {
    return replicaGroups({ axes: env, explicit: false }, names);
  }
  return [Array.from({ length: devices }, (_, i) => i)];
}

const axisNames = (e: Eqn): string[] => {
  const n = e.params['axes'] ?? e.params['axis_name'];
  return Array.isArray(n) ? (n as string[]) : typeof n === 'string' ? [n] : [];
};

/** Evaluate `f` on each device's arguments in lockstep; returns each device's results. */
export function evalSpmd(f: Func, args: Arr[][], opts: EvalOptions = {}): Arr[][] {
  const f32 = opts.f32 ?? false;
  const envs = args.map((a) => new Map<number, Arr>(f.params.map((p, i) => [p.id, a[i]!])));
  const read = (env: Map<number, Arr>, a: Atom): Arr => (a.kind === 'lit' ? { shape: [], data: [a.value] } : env.get(a.id)!);
  for (const e of f.eqns) {
    let outs: Arr[][];
    if (COLLECTIVES.has(e.prim)) {
      outs = envs.map(() => []);
      for (const g of groupsOf(f, axisNames(e), envs.length)) {
        // a multi-operand psum reduces each operand on its own
        e.inputs.forEach((a, k) => {
          const res = collective(e, g.map((dev) => read(envs[dev]!, a)), k);
          g.forEach((dev, r) => (outs[dev]![k] = res[r]!));
        });
      }
    } else if (e.prim === 'axis_index') {
      outs = envs.map(() => []);
      for (const g of groupsOf(f, axisNames(e), envs.length)) g.forEach((dev, r) => (outs[dev]![0] = { shape: [], data: [r] }));
    } else {
      const rule = RULES[e.prim];
      if (!rule) throw new Error(`ir_eval: no rule for '${e.prim}'`);
      outs = envs.map((env, dev) => rule(e, e.inputs.map((a) => read(env, a)), dev));
    }
    envs.forEach((env, dev) =>
      e.outputs.forEach((o, i) => {
        const r = outs[dev]![i]!;
        env.set(o.id, { shape: r.shape, data: r.data.map((v) => cast(v, o.aval.dtype, f32)) });
      }),
    );
  }
  return envs.map((env) => f.results.map((r) => read(env, r)));
}

/** Evaluate `f` on one device. */
export function evalFunc(f: Func, args: Arr[], opts: EvalOptions = {}): Arr[] {
  return evalSpmd(f, [args], opts)[0]!;
}

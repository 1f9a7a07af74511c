// Fused multiply-adds where XLA's CPU code has them. LLVM compiles XLA's
// fused loops with floating-point contraction on, so within one kernel an add
// or subtract of a float32 multiply that nothing else uses becomes one fused
// multiply-add, rounded once (measured on JAX 0.10.2: `jit(lambda a, b, c:
// a * b + c)` equals the correctly rounded fma(a, b, c) on every element,
// and differs from the rounded product plus c on a quarter of them; an SGD
// step `p - lr * g` is fma(-lr, g, p)). LLVM's DAG combiner picks, for
// `u*v + x*y` and `u*v - x*y`, the left multiply. Programs JAX runs one
// primitive at a time (host segments) are not contracted.
import type { KExpr, Program } from '../ir/kernel.js';
import { exprKey } from '../ir/kernel.js';

/** The kernel expression with its contractible adds and subtracts marked (`fma`). */
export function contractFma(body: KExpr): KExpr {
  // uses of each distinct subexpression (the renderers compute each once): one per referencing node
  const uses = new Map<string, number>();
  const seen = new Set<string>();
  const count = (e: KExpr): void => {
    const k = exprKey(e);
    uses.set(k, (uses.get(k) ?? 0) + 1);
    if (seen.has(k)) return;
    seen.add(k);
    children(e).forEach(count);
  };
  count(body);
  const single = (e: KExpr): boolean => e.op === 'bin' && e.fn === 'mul' && e.dtype === 'float32' && uses.get(exprKey(e)) === 1;
  const done = new Map<string, KExpr>();
  const rebuild = (e: KExpr): KExpr => {
    const k = exprKey(e);
    const known = done.get(k);
    if (known) return known;
    let out: KExpr;
    switch (e.op) {
      case 'load': out = { ...e, index: rebuild(e.index) }; break;
      case 'un': out = { ...e, x: rebuild(e.x) }; break;
      case 'cast': out = { ...e, x: rebuild(e.x) }; break;
      case 'select': out = { ...e, cond: rebuild(e.cond), a: rebuild(e.a), b: rebuild(e.b) }; break;
      case 'call': out = { ...e, args: e.args.map(rebuild) }; break;
      case 'reduce': out = { ...e, body: rebuild(e.body) }; break;
      case 'bin': {
        const fma = (e.fn === 'add' || e.fn === 'sub') && e.dtype === 'float32' ? (single(e.a) ? 'a' : single(e.b) ? 'b' : undefined) : undefined;
        out = { ...e, a: rebuild(e.a), b: rebuild(e.b), ...(fma ? { fma } : {}) };
        break;
      }
      default: out = e;
    }
    done.set(k, out);
    return out;
  };
  return rebuild(body);
}

function children(e: KExpr): KExpr[] {
  switch (e.op) {
    case 'load': return [e.index];
    case 'un':
    case 'cast': return [e.x];
    case 'bin': return [e.a, e.b];
    case 'select': return [e.cond, e.a, e.b];
    case 'call': return e.args;
    case 'reduce': return [e.body];
    default: return [];
  }
}

/** Every kernel of a program (and of its control-flow sub-programs) contracted. */
export function contractProgram(p: Program): Program {
  return { ...p, kernels: p.kernels.map((k) => ({ ...k, body: contractFma(k.body) })), ...(p.programs ? { programs: p.programs.map(contractProgram) } : {}) };
}

// jax.experimental.hijax: VJPHiPrimitive, a primitive a program defines as a class
// (in_avals, out_aval, params; `expand` its implementation over lax; `vjp_fwd` /
// `vjp_bwd_retval` its reverse-mode rule; `jvp` its forward-mode rule), written in
// the supported Python subset after jax/_src/hijax.py and run once per compilation
// on import. A call of the primitive is a jax.custom_vjp function of `expand` with the
// class's reverse-mode rule (whose default raises JAX's NotImplementedError when
// differentiated), or, where the class gives a `jvp` rule, a jax.custom_jvp function
// with it (reverse mode then transposes the linear JVP rule). Under vmap the class's
// batch_dim_rule is consulted (for JAX's error where it has none); vmap batches the call.
import { CompileError } from '../common/diagnostics.js';
import { parse } from '../parser/index.js';
import type { Interp } from './interp.js';
import { markSpans, preludeSpans } from './lib_example_libraries.js';
import { execBlock } from './stmt.js';
import { flatten } from './transforms.js';
import { PyBuiltin, PyModule, PyNativeMethod, PyTuple, PyUserClass, Scope, Tracer, type Trace, type PyValue } from './values.js';

/** Whether trace `t` is (inside) a jax.jvp's. */
const underJvp = (t: Trace | null): boolean => t !== null && (t.jvp || underJvp(t.parent));

/** Each argument's batch dimension (0 where it holds a value traced under vmap, else None); null outside vmap. */
function vmapDims(args: PyValue[]): PyValue {
  const underVmap = (t: Trace | null): boolean => t !== null && (t.kind === 'vmap' || underVmap(t.parent));
  const dims = args.map((a) => (flatten(a).leaves.some((l) => l instanceof Tracer && underVmap(l.trace)) ? 0n : null));
  return dims.some((d) => d !== null) ? new PyTuple(dims) : null;
}

const HIJAX_PY = `
import jax

class VJPHiPrimitive:
  __module__ = 'jax._src.hijax'

  def __init__(self):
    if not hasattr(self, 'in_avals'):
      raise AttributeError("subclass __init__ should set \`self.in_avals\`")
    if not hasattr(self, 'out_aval'):
      raise AttributeError("subclass __init__ should set \`self.out_aval\`")
    if not hasattr(self, 'params'):
      raise AttributeError("subclass __init__ should set \`self.params\`")
    for k, v in self.params.items():
      setattr(self, k, v)
    self.check(*self.in_avals)

  def expand(self, *args):
    raise NotImplementedError(f"subclass {type(self)} must implement \`expand\`")

  def vjp_fwd(self, nzs_in, *args):
    raise NotImplementedError(f"for grad support, subclass {type(self)} must implement \`vjp_fwd\`")

  def vjp_bwd_retval(self, res, outgrad):
    raise NotImplementedError(f"for grad support, subclass {type(self)} must implement \`vjp_bwd\` or \`vjp_bwd_retval\`")

  def jvp(self, primals, tangents):
    raise NotImplementedError(f"for jvp support, subclass {type(self)} must implement \`jvp\`")

  def batch_dim_rule(self, axis_data, dims):
    raise NotImplementedError(f"for vmap support, subclass {type(self)} must implement \`batch\` or \`batch_dim_rule\`")

  def check(self, *arg_tys):
    return

  def __repr__(self):
    return f"{self.__class__.__name__}[{self.params}]"

  def _hi_call(self, *args):
    prim = self
    # under vmap the class's batching rule is asked first (JAX's default raises NotImplementedError);
    # the batched call is then vmap's of the call below
    dims = _vmap_dims(*args)
    if dims is not None:
      self.batch_dim_rule(None, dims)
    if type(self).jvp is VJPHiPrimitive.jvp and _under_jvp(*args):
      self.jvp(args, None)  # forward mode needs the class's jvp rule: JAX's NotImplementedError
    if type(self).jvp is not VJPHiPrimitive.jvp:
      @jax.custom_jvp
      def call_hi_primitive(*xs):
        return prim.expand(*xs)
      def call_hi_primitive_jvp(primals, tangents):
        return prim.jvp(tuple(primals), tuple(tangents))
      call_hi_primitive.defjvp(call_hi_primitive_jvp)
    else:
      @jax.custom_vjp
      def call_hi_primitive(*xs):
        return prim.expand(*xs)
      def call_hi_primitive_fwd(*xs):
        return prim.vjp_fwd(tuple(True for _ in xs), *xs)
      def call_hi_primitive_bwd(res, g):
        return tuple(prim.vjp_bwd_retval(res, g))
      call_hi_primitive.defvjp(call_hi_primitive_fwd, call_hi_primitive_bwd)
    return call_hi_primitive(*args)
`;

const loaded = new WeakMap<Interp, PyModule>();

/** The module jax.experimental.hijax (loaded on its first import); `experimental` gets it as an attribute then. */
export function hijaxModule(ip: Interp, experimental: PyModule, shapedArray: PyValue | undefined): PyModule {
  let m = loaded.get(ip);
  if (!m) {
    const scope = new Scope(ip.builtins);
    scope.vars.set('_vmap_dims', new PyBuiltin('_vmap_dims', (c) => vmapDims(c.args)));
    scope.vars.set('_under_jvp', new PyBuiltin('_under_jvp', (c) => c.args.some((a) => flatten(a).leaves.some((l) => l instanceof Tracer && underJvp(l.trace)))));
    const mod = parse(HIJAX_PY);
    markSpans(mod);
    execBlock(ip, mod.body, scope);
    const cls = scope.vars.get('VJPHiPrimitive') as PyUserClass;
    const hiCall = cls.attrs.get('_hi_call')!;
    // a call's errors (JAX's NotImplementedError for a rule the class lacks) are reported where the program calls it
    cls.attrs.set('__call__', new PyNativeMethod('__call__', (self, c) => {
      try {
        return ip.call(hiCall, { ...c, args: [self, ...c.args] });
      } catch (e) {
        if (e instanceof CompileError && (e.span === null || preludeSpans.has(e.span))) throw new CompileError(e.message, c.span, e.notes);
        throw e;
      }
    }));
    const attrs = new Map<string, PyValue>([['VJPHiPrimitive', cls]]);
    if (shapedArray !== undefined) attrs.set('ShapedArray', shapedArray);
    m = new PyModule('jax.experimental.hijax', attrs);
    loaded.set(ip, m);
  }
  experimental.attrs.set('hijax', m);
  return m;
}

// jax.experimental.hijax: VJPHiPrimitive, a primitive a program defines as a class
// (in_avals, out_aval, params; `expand` its implementation over lax; `vjp_fwd` /
// `vjp_bwd_retval` its reverse-mode rule; `jvp` its forward-mode rule), written in
// the supported Python subset after jax/_src/hijax.py and run once per compilation
// on import. A call of the primitive is a jax.custom_vjp function of `expand` with the
// class's reverse-mode rule (whose default raises JAX's NotImplementedError when
// differentiated), or, where the class gives a `jvp` rule, a jax.custom_jvp function
// with it (reverse mode then transposes the linear JVP rule).
import { parse } from '../parser/index.js';
import type { Interp } from './interp.js';
import { markSpans } from './lib_example_libraries.js';
import { execBlock } from './stmt.js';
import { PyModule, Scope, type PyValue } from './values.js';

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

  def __call__(self, *args):
    prim = self
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
    const mod = parse(HIJAX_PY);
    markSpans(mod);
    execBlock(ip, mod.body, scope);
    const attrs = new Map([...scope.vars].filter(([k]) => k === 'VJPHiPrimitive'));
    if (shapedArray !== undefined) attrs.set('ShapedArray', shapedArray);
    m = new PyModule('jax.experimental.hijax', attrs);
    loaded.set(ip, m);
  }
  experimental.attrs.set('hijax', m);
  return m;
}

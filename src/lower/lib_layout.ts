// jax.experimental.layout: Layout (an array's major-to-minor dimension order,
// its tiling), Format (a layout with a sharding) and with_layout_constraint,
// written in the supported Python subset after jax/_src/layout.py and run once
// per compilation on import. jaxts keeps every array row-major, as XLA's CPU
// compiler lays them out: a compiled function's input_formats / output_formats
// and an array's `.format` say so (major_to_minor (0, 1, …), tiling ()), and a
// Format given to jit or device_put places the values by its sharding.
import { CompileError } from '../common/diagnostics.js';
import type { Span } from '../parser/ast.js';
import { parse } from '../parser/index.js';
import type { Interp } from './interp.js';
import { markSpans } from './lib_example_libraries.js';
import { PyShapeDtypeStruct } from './eval_shape.js';
import { execBlock } from './stmt.js';
import { flatten } from './transforms.js';
import { PyDict, PyModule, PyTuple, Scope, isArray, type PyValue } from './values.js';

const LAYOUT_PY = `
import jax

class AutoLayoutSingleton:
  __module__ = 'jax._src.layout'

  def __repr__(self):
    return "AUTO"

AutoLayout = AutoLayoutSingleton()

_SHARDINGS = ('NamedSharding', 'SingleDeviceSharding')

class Layout:
  __module__ = 'jax._src.layout'
  AUTO = AutoLayout

  def __init__(self, major_to_minor, tiling=None, sub_byte_element_size_in_bits=0):
    self.major_to_minor = tuple(major_to_minor)
    self.tiling = None if tiling is None else tuple(tuple(t) for t in tiling)
    self.sub_byte_element_size_in_bits = sub_byte_element_size_in_bits

  def __repr__(self):
    return (f'Layout(major_to_minor={self.major_to_minor},'
            f' tiling={self.tiling},'
            f' sub_byte_element_size_in_bits={self.sub_byte_element_size_in_bits})')

  def __hash__(self):
    return hash((self.major_to_minor, self.tiling, self.sub_byte_element_size_in_bits))

  def __eq__(self, other):
    if not isinstance(other, Layout):
      return False
    return (self.major_to_minor == other.major_to_minor and
            self.tiling == other.tiling and
            self.sub_byte_element_size_in_bits == other.sub_byte_element_size_in_bits)

  def update(self, **kwargs):
    if 'major_to_minor' not in kwargs:
      kwargs['major_to_minor'] = self.major_to_minor
    if 'tiling' not in kwargs:
      kwargs['tiling'] = self.tiling
    if 'sub_byte_element_size_in_bits' not in kwargs:
      kwargs['sub_byte_element_size_in_bits'] = self.sub_byte_element_size_in_bits
    return Layout(kwargs['major_to_minor'], kwargs['tiling'], kwargs['sub_byte_element_size_in_bits'])

  def check_compatible_aval(self, aval_shape):
    if len(self.major_to_minor) != len(aval_shape):
      raise ValueError(
          f'Length of major_to_minor and the rank of the value should match.'
          f' Got major_to_minor={self.major_to_minor} and shape={aval_shape}')

class Format:
  __module__ = 'jax._src.layout'

  def __init__(self, layout=None, sharding=None):
    if isinstance(layout, Layout) and sharding is None:
      raise ValueError(
          'Sharding has to be concrete when layout is of type'
          f' {type(layout)}. Please pass a'
          ' \`jax.sharding.NamedSharding\` or'
          ' \`jax.sharding.SingleDeviceSharding\` to the sharding argument. Got'
          f' sharding {sharding}')
    if not (layout is None or isinstance(layout, (Layout, AutoLayoutSingleton))):
      raise TypeError(
          'Invalid value received for the layout argument.'
          ' Expected values are \`None\`, \`Layout.AUTO\` or an'
          f' instance of \`Layout\`. Got {layout} of'
          f' type {type(layout)}')
    if not (sharding is None or type(sharding).__name__ in _SHARDINGS):
      raise TypeError(
          'Invalid value received for the sharding argument. Expected values'
          ' are \`None\` or an instance of \`jax.Sharding\`. Got'
          f' {sharding} of type {type(sharding)}')
    self.layout = layout
    self.sharding = sharding

  def __repr__(self):
    return f'Format(layout={self.layout}, sharding={self.sharding})'

  def __hash__(self):
    return hash((self.layout, self.sharding))

  def __eq__(self, other):
    if not isinstance(other, Format):
      return False
    return self.layout == other.layout and self.sharding == other.sharding

def with_layout_constraint(x, layout):
  if isinstance(layout, Layout):
    layout.check_compatible_aval(x.shape)
  return x

def _row_major(ndim, sharding):
  if sharding is None:
    sharding = jax.sharding.SingleDeviceSharding(jax.devices()[0])
  return Format(Layout(tuple(range(ndim)), ()), sharding)
`;

interface Loaded {
  module: PyModule;
  scope: Scope;
}
const loaded = new WeakMap<Interp, Loaded>();

function load(ip: Interp): Loaded {
  let l = loaded.get(ip);
  if (l) return l;
  const scope = new Scope(ip.builtins);
  const mod = parse(LAYOUT_PY);
  markSpans(mod);
  execBlock(ip, mod.body, scope);
  const attrs = new Map([...scope.vars].filter(([k]) => ['Layout', 'Format', 'AutoLayout', 'with_layout_constraint'].includes(k)));
  l = { module: new PyModule('jax.experimental.layout', attrs), scope };
  loaded.set(ip, l);
  return l;
}

/** The module jax.experimental.layout (loaded on its first import); `experimental` gets it as an attribute then. */
export function layoutModule(ip: Interp, experimental: PyModule): PyModule {
  const m = load(ip).module;
  experimental.attrs.set('layout', m);
  return m;
}

/** The row-major Format of each array leaf of `tree` (with its sharding when it has one): Compiled.input_formats / output_formats, `x.format`. */
export function rowMajorFormats(ip: Interp, tree: PyValue, sharding: (leaf: PyValue) => PyValue, span: Span): PyValue {
  const make = load(ip).scope.vars.get('_row_major');
  if (make === undefined) throw new CompileError('jax.experimental.layout did not load', span);
  const flat = flatten(tree);
  return flat.unflatten(
    flat.leaves.map((leaf) => {
      const ndim = isArray(leaf) || leaf instanceof PyShapeDtypeStruct ? leaf.aval.shape.length : ip.ops.aval(leaf, span).shape.length;
      return ip.call(make, { args: [BigInt(ndim), sharding(leaf)], kwargs: new Map(), span });
    }),
  );
}

/** Compiled.input_formats: (the positional arguments' formats, the keyword arguments' formats), as JAX pairs them. */
export function inputFormats(ip: Interp, args: PyValue[], kwargs: Map<string, PyValue>, sharding: (leaf: PyValue) => PyValue, span: Span): PyValue {
  const kw = new PyDict();
  for (const [k, v] of kwargs) kw.set(k, rowMajorFormats(ip, v, sharding, span));
  return new PyTuple([rowMajorFormats(ip, new PyTuple(args), sharding, span), kw]);
}

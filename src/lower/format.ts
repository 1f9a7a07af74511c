// str(), repr() and f-strings of lowering values, as Text: static values are
// formatted now with the runtime's Python/NumPy printers; arrays and host
// values become runtime formatting calls.
import { CompileError } from '../diagnostics.js';
import type { HExpr } from '../ir/host.js';
import type * as A from '../parser/ast.js';
import {
  formatValue, npScalarRepr, npScalarStr, numpyRepr, numpyStr, pyFloatRepr, PyFormatError, pyStrRepr,
} from '../../runtime/format/index.js';
import { evalExpr } from './expr.js';
import type { Interp } from './interp.js';
import { Text } from './text.js';
import {
  HostScalar, NdArray, NpScalar, PyBoundMethod, PyBuiltin, PyClass, PyDevice, PyDict, PyDType, PyFunction, PyList, PyModule,
  PyTransformed, PyTuple, Scope, isArray, typeName, type PyValue,
} from './values.js';

const call = (callee: string, args: HExpr[], isAwait = false): HExpr => ({ k: 'call', callee, args, await: isAwait });

export function strOf(ip: Interp, v: PyValue, span: A.Span): Text {
  if (typeof v === 'string') return Text.of(v);
  if (isArray(v)) return new Text([call('jx.str', [{ k: 'var', name: ip.hostArray(v, span).name }], true)]);
  if (v instanceof HostScalar) return new Text([v.type === 'str' ? v.expr : call('jx.pyStr', [v.expr, { k: 'lit', value: v.type }])]);
  if (v instanceof NdArray) return Text.of(numpyStr({ dtype: v.dtype, shape: v.shape, data: v.data }));
  if (v instanceof NpScalar) return Text.of(npScalarStr(v.value, v.dtype));
  if (v instanceof PyDevice) return new Text([call('rt.deviceStr', [{ k: 'lit', value: v.id }])]);
  if (v instanceof PyDType) return Text.of(v.name);
  return reprOf(ip, v, span);
}

export function reprOf(ip: Interp, v: PyValue, span: A.Span): Text {
  if (v === null) return Text.of('None');
  if (typeof v === 'boolean') return Text.of(v ? 'True' : 'False');
  if (typeof v === 'bigint') return Text.of(v.toString());
  if (typeof v === 'number') return Text.of(pyFloatRepr(v));
  if (typeof v === 'string') return Text.of(pyStrRepr(v));
  if (isArray(v)) return new Text([call('jx.repr', [{ k: 'var', name: ip.hostArray(v, span).name }], true)]);
  if (v instanceof HostScalar) return new Text([call('jx.pyRepr', [v.expr, { k: 'lit', value: v.type }])]);
  if (v instanceof NdArray) return Text.of(numpyRepr({ dtype: v.dtype, shape: v.shape, data: v.data }));
  if (v instanceof NpScalar) return Text.of(npScalarRepr(v.value, v.dtype));
  if (v instanceof PyDevice) return new Text([call('rt.deviceRepr', [{ k: 'lit', value: v.id }])]);
  if (v instanceof PyDType) return Text.of(`dtype('${v.name}')`);
  if (v instanceof PyTuple) {
    if (v.cls) {
      return Text.of(`${v.cls.name}(`).concat(Text.join(v.items.map((x, i) => Text.of(`${v.cls!.fields[i]}=`).concat(reprOf(ip, x, span))), ', '), ')');
    }
    return Text.of('(').concat(Text.join(v.items.map((x) => reprOf(ip, x, span)), ', '), v.items.length === 1 ? ',)' : ')');
  }
  if (v instanceof PyList) return Text.of('[').concat(Text.join(v.items.map((x) => reprOf(ip, x, span)), ', '), ']');
  if (v instanceof PyDict) {
    const items = [...v.entries.values()].map(([k, x]) => reprOf(ip, k, span).concat(': ', reprOf(ip, x, span)));
    return Text.of('{').concat(Text.join(items, ', '), '}');
  }
  if (v instanceof PyFunction || v instanceof PyTransformed) return Text.of(`<function ${v.name}>`);
  if (v instanceof PyBuiltin) return Text.of(`<built-in function ${v.name}>`);
  if (v instanceof PyBoundMethod) return Text.of(`<bound method ${v.name}>`);
  if (v instanceof PyModule) return Text.of(`<module '${v.name}'>`);
  if (v instanceof PyClass) return Text.of(`<class '${v.kind === 'namedtuple' ? '__main__.' : ''}${v.name}'>`);
  return Text.of(`<${typeName(v)} object>`);
}

/** format(v, spec) as Python does it (f"{v:spec}"). */
export function formatOf(ip: Interp, v: PyValue, spec: string, span: A.Span): Text {
  // f"{x}" of a 0-d array formats it as a Python scalar (a float32 shows its float64 repr)
  if (spec === '' && !(isArray(v) && ip.ops.aval(v, span).shape.length === 0)) return strOf(ip, v, span);
  if (isArray(v)) {
    const aval = ip.ops.aval(v, span);
    if (aval.shape.length !== 0) throw new CompileError('TypeError: unsupported format string passed to ArrayImpl.__format__', span);
    return new Text([call('jx.formatArray', [{ k: 'var', name: ip.hostArray(v, span).name }, { k: 'lit', value: spec }], true)]);
  }
  if (v instanceof HostScalar) return new Text([call('jx.format', [v.expr, { k: 'lit', value: spec }, { k: 'lit', value: v.type }])]);
  try {
    if (v instanceof NpScalar) {
      return Text.of(formatValue(v.dtype.startsWith('float') ? v.value : v.dtype === 'bool' ? v.value !== 0 : BigInt(v.value), spec));
    }
    if (v === null || typeof v === 'boolean' || typeof v === 'bigint' || typeof v === 'number' || typeof v === 'string') {
      return Text.of(formatValue(v, spec));
    }
  } catch (e) {
    if (e instanceof PyFormatError) throw new CompileError(`${e.pyType}: ${e.message}`, span);
    throw e;
  }
  throw new CompileError(`TypeError: unsupported format string passed to ${typeName(v)}.__format__`, span);
}

export function formatFString(ip: Interp, e: A.JoinedStr, scope: Scope): Text {
  let out = new Text([]);
  // evaluate every field first, so that their arrays are materialised together
  const values = e.values.map((part) => (part.kind === 'Constant' ? null : evalExpr(ip, part.value, scope)));
  if (ip.atHost) ip.flush(values);
  for (const [i, part] of e.values.entries()) {
    if (part.kind === 'Constant') {
      out = out.concat(String(part.value));
      continue;
    }
    const v = values[i]!;
    if (part.selfDoc) out = out.concat(part.selfDoc);
    const specText = part.formatSpec ? formatFString(ip, part.formatSpec, scope) : Text.of('');
    const spec = specText.static;
    if (spec === null) throw new CompileError('a format spec computed at run time is not supported', part.span);
    const conv = part.conversion ?? (part.selfDoc && !spec ? 'r' : null);
    if (conv === 'r' || conv === 'a') {
      const r = reprOf(ip, v, part.span);
      out = out.concat(spec ? formatTextAsStr(r, spec) : r);
    } else if (conv === 's') {
      const s = strOf(ip, v, part.span);
      out = out.concat(spec ? formatTextAsStr(s, spec) : s);
    } else out = out.concat(formatOf(ip, v, spec, part.span));
  }
  return out;
}

function formatTextAsStr(t: Text, spec: string): Text {
  const s = t.static;
  if (s !== null) return Text.of(formatValue(s, spec));
  return new Text([call('jx.format', [t.toExpr(), { k: 'lit', value: spec }, { k: 'lit', value: 'str' }])]);
}

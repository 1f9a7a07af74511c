// Python's printf-style `fmt % args` on a static format string. The runtime's
// scanner walks the format and the arguments; each conversion of a static
// scalar is formatted now, a host value becomes a `jx.printf` call, and the
// str/repr of any other value (arrays, containers) comes from format.ts.
import type { HExpr } from '../ir/host.js';
import type * as A from '../parser/ast.js';
import {
  asciiEscape, formatPrintfArg, printfSpecText, printfTypeError, scanPrintf, type PrintfArgs, type PrintfSpec,
} from '../../runtime/format/index.js';
import { subscript } from './expr.js';
import { checkFormatWidth } from './limits.js';
import { pyErrors, reprOf, strOf, textValue } from './format.js';
import type { Interp } from './interp.js';
import { Text } from './text.js';
import { HostScalar, NdArray, NpScalar, PyDict, PyList, PyTuple, isArray, typeName, type PyValue } from './values.js';

type Scalar = null | boolean | bigint | number | string;

const isScalar = (v: PyValue): v is Scalar =>
  v === null || typeof v === 'boolean' || typeof v === 'bigint' || typeof v === 'number' || typeof v === 'string';

/** A value of each host type, to find the errors that depend only on the type at compile time (a 1-character str, as %c takes). */
const SAMPLE: Record<HostScalar['type'], Scalar> = { int: 0n, float: 0, bool: false, str: 'x' };

/** `fmt % args`: a static string, or a host string when an argument is only known at run time. */
export function percentFormat(ip: Interp, fmt: string, args: PyValue, span: A.Span): PyValue {
  // materialise the arrays among the arguments together
  const arrays = [args, ...(args instanceof PyTuple ? args.items : args instanceof PyDict ? args.values() : [])].filter(isArray);
  if (ip.atHost && arrays.length) ip.flush(arrays);
  const argsOf: PrintfArgs<PyValue> = {
    tupleItems: (v) => (v instanceof PyTuple ? v.items : null),
    isMapping: (v) => v instanceof PyDict || v instanceof PyList || v instanceof NdArray || isArray(v),
    getItem: (m, key) => subscript(ip, m, key, span),
    starInt: (v) => {
      v = ip.static(v, "a '*' width or precision", span);
      return typeof v === 'bigint' || typeof v === 'boolean' ? Number(v) : null;
    },
  };
  let out = new Text([]);
  pyErrors(span, () =>
    scanPrintf(fmt, args, argsOf, (p) => {
      out = out.concat(typeof p === 'string' ? p : conversion(ip, p.value, p.spec, span));
    }),
  );
  return textValue(out);
}

const printfCall = (x: HExpr, spec: PrintfSpec, type: HostScalar['type']): Text =>
  new Text([{ k: 'call', callee: 'jx.printf', args: [x, { k: 'lit', value: printfSpecText(spec) }, { k: 'lit', value: type }] }]);

function conversion(ip: Interp, v: PyValue, spec: PrintfSpec, span: A.Span): Text {
  checkFormatWidth(spec.width, span);
  checkFormatWidth(spec.prec, span);
  if (isScalar(v)) return Text.of(formatPrintfArg(v, spec));
  if (v instanceof HostScalar) {
    formatPrintfArg(SAMPLE[v.type], spec);
    return printfCall(v.expr, spec, v.type);
  }
  const text = 'sra'.includes(spec.conv);
  if (v instanceof NpScalar && !text) return conversion(ip, v.dtype.startsWith('float') ? v.value : BigInt(v.value), spec, span);
  if (isArray(v) && !text) {
    // a 0-d array converts as int(x) / float(x) do
    const float = ip.ops.aval(v, span).dtype.startsWith('float');
    if (float && 'oxXc'.includes(spec.conv)) throw printfTypeError(spec.conv, typeName(v));
    const convert = ip.builtins.lookup('eEfFgG'.includes(spec.conv) ? 'float' : 'int')!;
    return conversion(ip, ip.call(convert, { args: [v], kwargs: new Map(), span }), spec, span);
  }
  if (!text) throw printfTypeError(spec.conv, typeName(v));
  const t = spec.conv === 's' ? strOf(ip, v, span) : reprOf(ip, v, span);
  const s = t.static;
  const asStr: PrintfSpec = { ...spec, conv: 's' };
  if (s !== null) return Text.of(formatPrintfArg(spec.conv === 'a' ? asciiEscape(s) : s, asStr));
  // text known only at run time is the str/repr of an array, ASCII already
  return spec.width < 0 && spec.prec < 0 ? t : printfCall(t.toExpr(), asStr, 'str');
}

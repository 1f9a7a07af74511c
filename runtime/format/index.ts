// Public surface of the printing/formatting runtime: Python/NumPy/JAX str,
// repr and format() reproduced character for character (NumPy 2.4, JAX 0.10.2,
// CPython 3.11 formatting rules).

export {
  formatFloatPositional, formatFloatScientific, shortestDigits,
  type FloatKind, type TrimMode, type PositionalOptions, type ScientificOptions,
} from './dragon4.js';
export { dtoa, doubleToString, pyComplexRepr, pyFloatRepr, float32ShortestString, pyRoundDigits, type DtoaResult, type DoubleToStringFlags } from './float_repr.js';
export {
  npFloatStr, npScalarStr, npScalarRepr, isFloatDType, isIntDType,
  type NpDType, type ScalarValue,
} from './numpy_scalar.js';
export { DEFAULT_PRINT_OPTIONS, resolvePrintOptions, setPrintOptions, type PrintOptions } from './print_options.js';
export { elementFormatter, floatingFormatter, integerFormatter, type ElementFormatter } from './numpy_elements.js';
export {
  array2string, numpyStr, numpyRepr, shapeRepr, shapeSize,
  type HostArray, type Array2StringOptions,
} from './numpy_array.js';
export {
  PyInt, pyInt, PyTuple, pyTuple, PyNamedTuple, pyRepr, pyStr, pyStrRepr, pyIntStr, pyTypeName, pyPrintLine,
  isPyObjectLike, type PyValue, type PyObjectLike, type PyDictRecord,
} from './python_repr.js';
export {
  PyFormatError, parseFormatSpec, formatValue, formatFloat, formatInt, formatBool, formatStr, type FormatSpec,
} from './format_spec.js';
export {
  scanPrintf, formatPrintfArg, printfSpecText, printfTypeError, pyPercentFormat, asciiEscape,
  type PrintfSpec, type PrintfArgs, type PrintfPart,
} from './printf.js';
export {
  jaxRepr, jaxKeyRepr, jaxStr, arrayFormat, JaxArrayObject, NumpyArrayObject, NumpyScalar, type JaxReprOptions,
} from './jax_array.js';

// Python's `enum` module: Enum and IntEnum classes whose class-body
// assignments become the members (instances with `name` and `value`),
// `enum.auto()` numbering them from 1, and CPython's reprs
// (`<Color.RED: 1>`, `Color.RED`). A class statement with an Enum base calls
// `defineMembers` (classes.ts makeClass).
import { CompileError } from '../common/diagnostics.js';
import type { Span } from '../parser/ast.js';
import { PyBuiltin, PyDescriptor, PyFunction, PyInstance, PyModule, PyNativeMethod, PyUserClass, typeName, type PyValue } from './values.js';

export const ENUM = new PyUserClass('Enum', [], 'enum');
export const INT_ENUM = new PyUserClass('IntEnum', [ENUM], 'enum');
const AUTO = new PyUserClass('auto', [], 'enum');

const memberName = (self: PyValue): string => String((self as PyInstance).attrs.get('name'));
ENUM.attrs.set('__repr__', new PyNativeMethod('__repr__', (self, c) => `<${(self as PyInstance).cls.name}.${memberName(self)}: ${reprValue((self as PyInstance).attrs.get('value') ?? null, c.span)}>`));
ENUM.attrs.set('__str__', new PyNativeMethod('__str__', (self) => `${(self as PyInstance).cls.name}.${memberName(self)}`));
// IntEnum prints as its number (Python 3.11)
INT_ENUM.attrs.set('__str__', new PyNativeMethod('__str__', (self) => String((self as PyInstance).attrs.get('value'))));

function reprValue(v: PyValue, span: Span): string {
  if (typeof v === 'bigint' || typeof v === 'number' || typeof v === 'boolean') return typeof v === 'boolean' ? (v ? 'True' : 'False') : String(v);
  if (typeof v === 'string') return `'${v}'`;
  throw new CompileError(`NotImplementedError: an Enum member whose value is a ${typeName(v)} is not supported by jaxts`, span);
}

/** The `enum` module. */
export function enumModule(): PyModule {
  return new PyModule(
    'enum',
    new Map<string, PyValue>([
      ['Enum', ENUM],
      ['IntEnum', INT_ENUM],
      ['auto', new PyBuiltin('auto', () => new PyInstance(AUTO))],
      ['unique', new PyBuiltin('unique', (c) => c.args[0] ?? null)],
    ]),
  );
}

/** An Enum subclass just made: its plain class attributes become its members, in order. */
export function defineMembers(cls: PyUserClass, span: Span): void {
  if (!cls.isSubclassOf(ENUM)) return;
  let last = 0n;
  for (const [name, v] of [...cls.attrs]) {
    if (name.startsWith('_') || v instanceof PyFunction || v instanceof PyDescriptor || v instanceof PyBuiltin || v instanceof PyNativeMethod) continue;
    let value = v;
    if (v instanceof PyInstance && v.cls === AUTO) value = last + 1n;
    if (typeof value === 'bigint') last = value;
    if (cls.isSubclassOf(INT_ENUM) && typeof value !== 'bigint') throw new CompileError(`ValueError: invalid literal for int() with base 10: ${reprValue(value, span)}`, span);
    const m = new PyInstance(cls);
    m.attrs.set('name', name);
    m.attrs.set('value', value);
    m.attrs.set('_name_', name);
    m.attrs.set('_value_', value);
    cls.attrs.set(name, m);
  }
}

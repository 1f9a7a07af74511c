// The dtype table: every array dtype jaxts knows, with the facts the compiler
// and the runtime ask about it (kind, width, NumPy's abstract class, the 32-bit
// lane it is computed and stored in). A new dtype is one entry here. The
// narrow dtypes (8/16-bit integers, float16, bfloat16) live in 32-bit lanes —
// WGSL has no 8/16-bit storage — and every operation producing one rounds
// (floats, round-to-nearest-even as XLA) or wraps (integers) its lane value
// back into the narrow type (`narrowValue`). float64 and int64 exist while
// jax_enable_x64 is on; they run on the CPU backend only (WGSL has no 64-bit
// types), each in a Float64Array: int64 as integral doubles, exact to 2**53
// as the host NumPy arrays (runtime/numpy) hold their int64.

import { roundBf16, roundF16 } from './format/narrow_float.js';

export { roundBf16, roundF16 };

export type DTypeKind = 'bool' | 'uint' | 'int' | 'float' | 'complex';
/** The types buffers and kernel expressions use: 32-bit, and the 64-bit ones of x64 mode. */
export type LaneDType = 'float32' | 'int32' | 'uint32' | 'bool' | 'complex64' | 'float64' | 'int64';

export interface DTypeInfo {
  readonly kind: DTypeKind;
  readonly bits: number;
  /** jaxpr's short name (`f32`, `bf16`). */
  readonly short: string;
  readonly lane: LaneDType;
  /** NumPy's abstract scalar class the dtype is a leaf of. */
  readonly category: 'generic' | 'unsignedinteger' | 'signedinteger' | 'floating' | 'complexfloating';
}

export const DTYPES = {
  bool: { kind: 'bool', bits: 8, short: 'bool', lane: 'bool', category: 'generic' },
  uint8: { kind: 'uint', bits: 8, short: 'u8', lane: 'uint32', category: 'unsignedinteger' },
  uint16: { kind: 'uint', bits: 16, short: 'u16', lane: 'uint32', category: 'unsignedinteger' },
  uint32: { kind: 'uint', bits: 32, short: 'u32', lane: 'uint32', category: 'unsignedinteger' },
  int8: { kind: 'int', bits: 8, short: 'i8', lane: 'int32', category: 'signedinteger' },
  int16: { kind: 'int', bits: 16, short: 'i16', lane: 'int32', category: 'signedinteger' },
  int32: { kind: 'int', bits: 32, short: 'i32', lane: 'int32', category: 'signedinteger' },
  int64: { kind: 'int', bits: 64, short: 'i64', lane: 'int64', category: 'signedinteger' },
  bfloat16: { kind: 'float', bits: 16, short: 'bf16', lane: 'float32', category: 'floating' },
  float16: { kind: 'float', bits: 16, short: 'f16', lane: 'float32', category: 'floating' },
  float32: { kind: 'float', bits: 32, short: 'f32', lane: 'float32', category: 'floating' },
  float64: { kind: 'float', bits: 64, short: 'f64', lane: 'float64', category: 'floating' },
  complex64: { kind: 'complex', bits: 64, short: 'c64', lane: 'complex64', category: 'complexfloating' },
} as const satisfies Record<string, DTypeInfo>;

export type DType = keyof typeof DTYPES;
export const ALL_DTYPES = Object.keys(DTYPES) as DType[];

export const dtypeInfo = (d: DType): DTypeInfo => DTYPES[d];
/** The lane a dtype's values are stored and computed in. */
export const laneOf = (d: DType): LaneDType => DTYPES[d].lane;
/** A dtype narrower than its lane: each result is rounded or wrapped into it. */
export const isNarrow = (d: DType): boolean => (DTYPES[d].lane as DType) !== d;
export const isDType = (s: string): s is DType => Object.prototype.hasOwnProperty.call(DTYPES, s);

/** A lane value brought into dtype `d`: integers wrap, float16/bfloat16 round; other dtypes unchanged. */
export function narrowValue(v: number, d: DType): number {
  switch (d) {
    case 'uint8':
      return v & 0xff;
    case 'uint16':
      return v & 0xffff;
    case 'int8':
      return (v << 24) >> 24;
    case 'int16':
      return (v << 16) >> 16;
    case 'float16':
      return roundF16(v);
    case 'bfloat16':
      return roundBf16(v);
    default:
      return v;
  }
}

/** A 64-bit dtype (x64 mode): computed on the CPU backend only. */
export const isWide = (d: DType): boolean => d === 'float64' || d === 'int64';

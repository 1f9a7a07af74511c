// The compiler's view of the dtype table. The table itself lives in runtime/dtypes.ts
// (the runtime allocates lanes and rounds narrow values with it, and imports nothing of
// the compiler); every stage of the compiler asks about dtypes through this module.
export { ALL_DTYPES, DTYPES, dtypeInfo, isDType, isNarrow, isWide, laneOf, narrowValue, roundBf16, roundF16 } from '../../runtime/dtypes.js';
export type { DType, DTypeInfo, DTypeKind, LaneDType } from '../../runtime/dtypes.js';

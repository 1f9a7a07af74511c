// jaxts/runtime: what generated code and applications import. Independent of
// the compiler and free of Node imports, so it bundles for the browser
// (runtime/node.ts, jaxts/node, adds Node's WebGPU and stdout).
// The reference makes the published declarations bring WebGPU's types (GPU,
// GPUDevice) along, so an application type-checks them without skipLibCheck.
/// <reference types="@webgpu/types" preserve="true" />
export { Runtime, JArray, JArray as Array, PythonError, type Device, type RuntimeOptions } from './runtime.js';
export { createRuntime, runtime, array, arg, staticArg, fromMain, type CreateRuntimeOptions } from './app.js';
export { dims, symbolic, type Dims } from './symbolic.js';
export type { Backend, DeviceBuffer, MemoryStats } from './backend.js';
export { CpuBackend } from './cpu/backend.js';
export { WebGpuBackend, createWebGpuBackend } from './webgpu/backend.js';
export type { ProgramSpec, KernelSpec, CpuBuffer, CpuKernel, BufferSpec, StepSpec, BufRef, DType } from './program.js';
export { release, str, repr, keyRepr, formatArray, item, values, pyStr, pyRepr, format, printf, pyIndex, notNone, pyCaught, pyExcMatches, pyRethrow, pyFormatExc, pyStrReplace, type PyExc, pyListRepr, pySeqEquals, pyArrayListRepr, pyListSort, pySortOrder, pyArgExtreme, pyPick, pyListSum, pyListTruth, pyListFind, pyRangeList, pyListExtreme, pyListPop, pyListExtend, pyStrIndex, pySlice, pyStrSlice, clockTime, clockPerf, sleep, degrees, radians, truediv, floordiv, mod, bigFloordiv, bigMod, bigEq, math1, pyLog, floatpow, bitop, roundHalfEven32, pyRound, f32ToI32, f32ToU32, assertTrue, pyAssert, pyRaise, assertClose, type TestedValues } from './values.js';
export { threefry2x32 } from './cpu/random.js';
export { columnSum32, f32Scratch, wideSum32 } from './cpu/reduce.js';
export { dotF32, type DotLayout } from './cpu/gemm.js';
export { f32ToBits, bitsToF32, ftz32, fma32 } from './cpu/math.js';
export { roundF16, roundBf16 } from './dtypes.js';
export { sin32, cos32, tan32, exp32, log32, log1p32, expm1_32, tanh32, logistic32, erf32, erfInv32, pow32, atan2_32, atanXla32, rsqrt32 } from './cpu/math.js';
export { sin64, cos64, tan64, exp64, log64, log1p64, expm1_64, tanh64, logistic64, erf64, erfInv64, pow64, atan2_64, rsqrt64, f64ToI64, bits64 } from './cpu/math64.js';
export { pyRoundDigits, setPrintOptions } from './format/index.js';
export * as np from './numpy/index.js';
export * as pyMath from './pymath.js';
export * as pyStrMethods from './py_str.js';

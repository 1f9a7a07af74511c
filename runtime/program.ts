// The compiled-program format that generated code hands to the runtime: the
// kernels (WGSL source and a CPU function each), planned buffers, and steps.
// This is the compiler↔runtime contract, declared once: the compiler's kernel
// IR (src/ir/kernel.ts) builds its programs from these types, and its WGSL
// renderer takes the dispatch geometry from the constants below.
import { laneOf, type DType } from './dtypes.js';

export type { DType };

export type CpuBuffer = Float32Array | Int32Array | Uint32Array | Float64Array;
export type CpuKernel = (ins: CpuBuffer[], out: CpuBuffer, device: number) => void;

export interface BufferSpec {
  dtype: DType;
  size: number; // elements
}

export interface KernelSpec {
  name: string;
  wgsl: string;
  cpu: CpuKernel;
  inputs: BufferSpec[];
  output: BufferSpec;
  /** The kernel reads its device's position in the run (axis_index): the CPU kernel's `device`; in WGSL the invocation index / output size. */
  usesDevice: boolean;
  /**
   * Workgroups per device of the WGSL shader when it gives a workgroup a tile of the output or one
   * element's reductions (src/codegen/wgsl.ts); absent: one invocation per output element.
   */
  workgroups?: number;
  /**
   * A WGSL shader whose reduction is split over workgroups: entry point `main` writes this many
   * partial results per device to a scratch binding (after the output), then entry point `finish`
   * runs a workgroup per output element.
   */
  partials?: number;
}

/** Where a program step reads or writes: a program parameter or a planned buffer. */
export type BufRef = { kind: 'param'; index: number } | { kind: 'buf'; index: number };

export type StepSpec =
  | { kind: 'kernel'; kernel: number; inputs: BufRef[]; output: number }
  /**
   * Communication: each device's `output` = all devices' `input` buffers,
   * concatenated in device order; with `groups` (lists of positions in the
   * run's device list), the buffers of the device's own group, in group order.
   */
  | { kind: 'gather'; input: BufRef; output: number; groups?: number[][] }
  // Control flow (lax.cond / while_loop / scan): only in a program with sub-programs (`programs`), whose
  // steps are all of these kinds; each writes its results to fresh buffers `outputs` (never reused).
  /** A straight-line sub-program `programs[program]` on `inputs`. */
  | { kind: 'call'; program: number; inputs: BufRef[]; outputs: number[] }
  /** lax.cond: `programs[branches[i]]` on `inputs`, i the int32 scalar `index` clamped to the branches. */
  | { kind: 'cond'; index: BufRef; branches: number[]; inputs: BufRef[]; outputs: number[] }
  /**
   * lax.while_loop: carry = init; while `programs[cond]`(condConsts, carry) (a bool scalar, read back):
   * carry = `programs[body]`(bodyConsts, carry). Devices whose predicate is false keep their carry.
   */
  | { kind: 'while'; cond: number; body: number; condConsts: BufRef[]; bodyConsts: BufRef[]; init: BufRef[]; outputs: number[] }
  /**
   * lax.scan: for i in 0..length-1 (reversed with `reverse`): (carry, y_i) = `programs[body]`(consts,
   * carry, x_i) with x_i row i of each of `xs`; outputs: the final carry, then each y stacked (row i = y_i).
   * No readback: the trip count is static.
   */
  | { kind: 'scan'; body: number; length: number; reverse: boolean; consts: BufRef[]; init: BufRef[]; xs: BufRef[]; outputs: number[] };

/** A jax_debug_nans check of one program result: what made it, for JAX's FloatingPointError. */
export interface NanCheck {
  /** The lax primitive, as JAX's error names it (`log`, `div`, ...). */
  prim: string;
  /** 1-based line of the Python source that applied it, when known. */
  line: number | null;
  /**
   * How many jit levels JAX re-runs de-optimized on the way to the primitive (each prints "Invalid nan
   * value encountered in the output of a jax.jit function. ..."): the user's jit, and the jnp function
   * (JAX jits those) that applied it. Absent: none.
   */
  deopt?: number;
  /** The Python traceback's frames to the primitive (CPython's text, one entry per frame), when known. */
  frames?: readonly string[];
}

/** What the lowering knows of where a primitive was applied, for its NaN check (NanCheck's deopt and frames). */
export type NanOrigin = Required<Pick<NanCheck, 'deopt' | 'frames'>>;

export interface ProgramSpec {
  name: string;
  params: BufferSpec[];
  buffers: BufferSpec[];
  kernels: KernelSpec[];
  steps: StepSpec[];
  results: BufRef[];
  resultShapes: number[][];
  /**
   * jax_debug_nans: the last `nanChecks.length` results are float
   * intermediates (the primitive and Python line of each), checked for NaN
   * after the call; the caller gets the results before them.
   */
  nanChecks?: NanCheck[];
  /** The sub-programs of control-flow steps (then every step is a control step; runtime/control.ts runs them). */
  programs?: ProgramSpec[];
}

/** Invocations per workgroup of every kernel. */
export const WORKGROUP_SIZE = 64;
/** Workgroups per grid row; larger dispatches use a 2-D grid. */
export const MAX_WORKGROUPS_X = 65535;

/**
 * A host buffer of `size` slots. A complex64 buffer holds interleaved (re, im) float32 pairs: its
 * `size` counts float32 slots, two per element (kernels see it as a float32 array with a trailing 2).
 */
export function newCpuBuffer(dtype: DType, size: number): CpuBuffer {
  const lane = laneOf(dtype);
  return lane === 'float32' || lane === 'complex64' ? new Float32Array(size) : lane === 'int32' ? new Int32Array(size) : lane === 'float64' || lane === 'int64' ? new Float64Array(size) : new Uint32Array(size);
}

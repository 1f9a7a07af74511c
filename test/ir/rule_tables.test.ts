// The per-primitive rule tables: which primitives take a table's default
// instead of an entry of their own. `tsc` already names a table that lacks a
// primitive where the table is a full Record over (a subset of) `Prim`; these
// lists cover the defaults, so a new primitive changes one of them visibly.
import { describe, expect, it } from 'vitest';
import { isElementwise, PRIM_NAMES, PRIMS } from '../../src/ir/prims.js';
import { JVP_RULES, TRANSPOSE_RULES } from '../../src/passes/autodiff.js';
import { ELEMENT_RULES } from '../../src/passes/index_rules.js';
import { LINEAR } from '../../src/passes/spmd.js';

const without = (...names: string[]) => PRIM_NAMES.filter((p) => !names.includes(p));

describe('rule tables: primitives taking a default', () => {
  it('elementwise primitives share one rule in vmap (BATCH_RULES), sharding (DIM_RULES) and spmd (PARTITION_RULES)', () => {
    expect(PRIM_NAMES.filter(isElementwise)).toEqual([
      'sin', 'cos', 'tan', 'exp', 'exp2', 'log', 'log1p', 'expm1', 'tanh', 'logistic', 'sqrt', 'rsqrt', 'erf', 'erf_inv',
      'neg', 'sign', 'abs', 'floor', 'ceil', 'round', 'copy', 'not', 'is_finite', 'stop_gradient', 'pvary', 'integer_pow',
      'convert_element_type', 'bitcast_convert_type', 'add', 'sub', 'mul', 'div', 'rem', 'pow', 'max', 'min', 'atan2',
      'complex', 'real', 'imag', 'conj', 'and', 'or', 'xor', 'shift_left', 'shift_right_logical', 'shift_right_arithmetic', 'eq', 'ne', 'lt', 'le', 'gt', 'ge',
      'select_n', 'clamp', 'threefry2x32',
    ]);
  });

  it('TRANSPOSE_RULES: no entry for a primitive never linear in a tangent', () => {
    expect(PRIM_NAMES.filter((p) => !TRANSPOSE_RULES[p])).toEqual([
      'sin', 'cos', 'tan', 'exp', 'exp2', 'log', 'log1p', 'expm1', 'tanh', 'logistic', 'sqrt', 'rsqrt', 'erf', 'erf_inv',
      'sign', 'abs', 'floor', 'ceil', 'round', 'not', 'is_finite', 'stop_gradient', 'integer_pow', 'bitcast_convert_type',
      'rem', 'pow', 'max', 'min', 'atan2', 'and', 'or', 'xor', 'shift_left', 'shift_right_logical', 'shift_right_arithmetic',
      'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'clamp', 'threefry2x32', 'iota', 'reduce_max', 'reduce_min', 'reduce_prod',
      'argmax', 'argmin', 'reduce_window_max', 'reduce_window_min', 'scatter_min', 'scatter_max', 'sort', 'pmax', 'pmin', 'axis_index', 'custom_jvp_call',
    ]);
  });

  it('JVP_RULES: null (no differentiation rule) for pmax and pmin; custom calls, control flow and shard_map apply their own rule', () => {
    expect(PRIM_NAMES.filter((p) => JVP_RULES[p] === null)).toEqual(['pmax', 'pmin', 'custom_jvp_call', 'custom_vjp_call', 'cond', 'while', 'scan', 'shard_map']);
  });

  it('spmd LINEAR: a pending partial sum passes only neg, copy, pvary and float conversions; other elementwise primitives resolve it', () => {
    expect(PRIM_NAMES.filter((p) => isElementwise(p) && !LINEAR[p])).toEqual([
      'sin', 'cos', 'tan', 'exp', 'exp2', 'log', 'log1p', 'expm1', 'tanh', 'logistic', 'sqrt', 'rsqrt', 'erf', 'erf_inv',
      'sign', 'abs', 'floor', 'ceil', 'round', 'not', 'is_finite', 'stop_gradient', 'integer_pow', 'bitcast_convert_type',
      'add', 'sub', 'mul', 'div', 'rem', 'pow', 'max', 'min', 'atan2', 'complex', 'real', 'imag', 'conj', 'and', 'or', 'xor',
      'shift_left', 'shift_right_logical', 'shift_right_arithmetic', 'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'select_n', 'clamp', 'threefry2x32',
    ]);
    expect(PRIM_NAMES.filter((p) => LINEAR[p]).every(isElementwise)).toBe(true);
  });

  it('ELEMENT_RULES: collectives and sort are lowered before fusion; argmax/argmin, complex values (split before the kernels), custom calls and control flow have no kernel', () => {
    const collectives = PRIM_NAMES.filter((p) => PRIMS[p].axes === 'collective');
    expect(collectives).toEqual(['psum', 'pmax', 'pmin', 'all_gather', 'psum_scatter', 'ppermute', 'all_to_all']);
    expect(Object.keys(ELEMENT_RULES).sort()).toEqual(without(...collectives).sort());
    expect(Object.entries(ELEMENT_RULES).filter(([, r]) => r === null).map(([p]) => p)).toEqual(['argmax', 'argmin', 'sort', 'complex', 'real', 'imag', 'conj', 'custom_jvp_call', 'custom_vjp_call', 'cond', 'while', 'scan', 'shard_map']);
  });
});

# Writes test/lower/promotion_table.json: JAX's result dtype and weak-type flag for every
# pair of jaxts's dtypes and Python scalars (weak int, float, complex), as the pinned JAX
# computes them with x64 disabled; and promotion_table_x64.json, the same with x64 enabled
# among the real dtypes (float64 and int64 added; jaxts has no complex128). Run with the oracle's Python:
#   .venv/oracle/bin/python scripts/promotion_table.py
import json
import os

import jax
import jax.numpy as jnp
from jax._src import dtypes

NAMES = ['bool', 'uint8', 'uint16', 'uint32', 'int8', 'int16', 'int32', 'bfloat16', 'float16', 'float32', 'complex64']
WEAK = {'weak_int': 1, 'weak_float': 1.0, 'weak_complex': 1j}
operands = {n: jnp.dtype(n) for n in NAMES} | WEAK



def write(name, operands):
  table = {}
  for a, x in operands.items():
    for b, y in operands.items():
      d, weak = dtypes.result_type(x, y, return_weak_type_flag=True)
      table[f'{a},{b}'] = [str(d), bool(weak)]
  out = os.path.join(os.path.dirname(__file__), '..', 'test', 'lower', name)
  with open(out, 'w') as f:
    f.write('{\n' + ',\n'.join(f'  {json.dumps(k)}: {json.dumps(v)}' for k, v in sorted(table.items())) + '\n}\n')


write('promotion_table.json', operands)
jax.config.update('jax_enable_x64', True)
real = [n for n in NAMES if n != 'complex64'] + ['int64', 'float64']
write('promotion_table_x64.json', {n: jnp.dtype(n) for n in real} | {'weak_int': 1, 'weak_float': 1.0})

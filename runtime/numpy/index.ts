// jx.np: host NumPy in generated code (arrays and np.random at run time).
export * from './ndarray.js';
export * from './random.js';

// Shard 2 of the golden suite (suite.ts): every fixture against real JAX's output on both backends.
import { goldenShard } from './suite.js';

goldenShard(2, 4);

// Vitest configuration: one project, suites under test/ mirroring src/ and runtime/.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Dawn is one native instance per process; keep suites in forks, one at a time on 2 cores.
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
    // Compiled programs (src/run.ts loadCompiled: temporary jaxts-*/ folders) are imported by Node
    // itself: through vitest's transform each one cost ~150 ms (its inline source map included).
    server: { deps: { external: [/[\\/]jaxts-[^\\/]+[\\/][^\\/]+\.mjs$/] } },
  },
});

import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Under Node 20, names the tests that need Node 24 (the official packages) and are skipped.
    globalSetup: ['test/setup/nodeVersion.ts'],
    environment: 'node',
    pool: 'forks',
    // Vitest's default is one worker on a 2-core machine; most integration files wait on the mock's
    // clock or on loopback I/O, so two forks halve the wall time without starving either.
    maxWorkers: 2,
    // Each fork keeps its module cache across the files it runs. Isolation re-imported the tree for
    // every file: ~130 s of import and transform CPU per run on 2 cores, more than the tests themselves
    // (measured: 3 min 54 s of CPU isolated against 1 min 41 s shared, same tree). Test files own their
    // state (servers, clocks, stores are built per test), so sharing modules changes no outcome.
    isolate: false,
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
})

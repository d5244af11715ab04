import { configDefaults, defineConfig } from 'vitest/config'

/**
 * Files that drive a stepped virtual clock through `settle` (src/sim/simulate/steppedRun.ts), which
 * reads what the whole process has pending: a wall-clock timer another file left behind would keep
 * it from ever idling ("did not idle within 1000000 event-loop turns", seen once a second-poll timer
 * of another file stayed in a shared fork). They run in a process of their own.
 */
const OWN_PROCESS = [
  'test/{sim,research}/**/*.integration.test.ts',
  'test/sim/booksBalance.test.ts',
  'test/sim/simulate/{compare,defaultMarket}.test.ts',
  'test/cli/simulate.test.ts',
  'test/journal/dryRunVenues.test.ts',
]

export default defineConfig({
  test: {
    // Under Node 20, names the tests that need Node 24 (the official packages) and are skipped.
    globalSetup: ['test/setup/nodeVersion.ts'],
    environment: 'node',
    pool: 'forks',
    // Vitest's default is one worker on a 2-core machine; most integration files wait on the mock's
    // clock or on loopback I/O, so two forks halve the wall time without starving either.
    maxWorkers: 2,
    // A timeout only catches a hang: with a CPU burner on both cores a test that takes 8 s idle took
    // over 20 s (issue 34), so the bound leaves three times that room.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...OWN_PROCESS],
          // Each fork keeps its module cache across the files it runs. Isolation re-imported the tree
          // for every file: ~130 s of import and transform CPU per run on 2 cores, more than the tests
          // themselves (measured: 3 min 54 s of CPU isolated against 1 min 41 s shared, same tree).
          // Test files own their state (servers, clocks, stores are built per test).
          isolate: false,
        },
      },
      { extends: true, test: { name: 'own-process', include: OWN_PROCESS, isolate: true } },
    ],
  },
})

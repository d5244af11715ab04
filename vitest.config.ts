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
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
})

import { relative } from 'node:path'
import { configDefaults, defineConfig } from 'vitest/config'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

/**
 * Files that drive a stepped virtual clock through `settle` (src/sim/simulate/steppedRun.ts), which
 * reads what the whole process has pending: a wall-clock timer another file left behind would keep
 * it from ever idling ("did not idle within 1000000 event-loop turns", seen once a second-poll timer
 * of another file stayed in a shared fork). They share forks only with each other (vitest reuses a
 * fork within one project): none of them runs a wall-clock part, so none leaves such a timer, and
 * each no longer pays a fresh import of the tree (~3 s a file).
 */
const STEPPED = [
  'test/research/{fastEngine,groundTruth,liveDownload}.integration.test.ts',
  'test/sim/**/*.integration.test.ts',
  'test/sim/booksBalance.test.ts',
  'test/sim/simulate/{compare,defaultMarket}.test.ts',
  'test/cli/simulate.test.ts',
  'test/journal/dryRunVenues.test.ts',
]

/**
 * The recorder's files run the accelerated mock (its clock keeps a wall timer armed) and child
 * processes: each in a process of its own, where nothing it leaves can reach a stepped file.
 */
const OWN_PROCESS = [
  'test/research/recordingTap.integration.test.ts',
  'test/research/recordStream.integration.test.ts',
]

/**
 * The longest files, longest first (measured 2026-12-07 in a full run at load 7–9, after issue 34's
 * suite cuts). Two forks finish together only when the long files start early: vitest orders by the
 * durations it kept from the last run, and without them (a fresh clone, as `.ci/run` uses) by file
 * size, which put a 30 s file among the last. An outdated list only changes the order, never what runs.
 */
const SLOW_FIRST = [
  // own-process and stepped
  'test/research/recordingTap.integration.test.ts',
  'test/sim/booksBalance.test.ts',
  'test/sim/simulate/restingQuotes.integration.test.ts',
  'test/sim/simulate/simulate.integration.test.ts',
  'test/research/recordStream.integration.test.ts',
  'test/journal/dryRunVenues.test.ts',
  'test/research/groundTruth.integration.test.ts',
  'test/research/fastEngine.integration.test.ts',
  'test/sim/simulate/defaultMarket.test.ts',
  // shared
  'test/paper/paper.integration.test.ts',
  'test/integration/botScenarios.test.ts',
  'test/fleet/botProcesses.redis.test.ts',
  'test/cli/signals.process.test.ts',
  'test/research/sweepShards.test.ts',
  'test/fleet/lease.processes.test.ts',
  'test/integration/hostileExit.test.ts',
  'test/catalogue/contract.test.ts',
  'test/journal/killNine.test.ts',
  'test/integration/streamCut.test.ts',
  'test/integration/exitPaths.test.ts',
  'test/journal/largeReads.test.ts',
  'test/integration/foreignFloodE2e.test.ts',
  'test/kit/conformance.test.ts',
  'test/cli/compiledCli.test.ts',
]

/**
 * Vitest's order (projects apart, each project's files by last duration, else by size), except that
 * a project with any file vitest holds no duration for starts with the SLOW_FIRST files.
 */
class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    const root = this.ctx.config.root
    const path = (s: TestSpecification): string => relative(root, s.moduleId)
    const untimed = new Set(
      sorted
        .filter((s) => this.ctx.cache.getFileTestResults(`${s.project.name}:${path(s)}`) === undefined)
        .map((s) => s.project.name),
    )
    const projectAt = new Map<string, number>()
    sorted.forEach((s, i) => {
      if (!projectAt.has(s.project.name)) projectAt.set(s.project.name, i)
    })
    const rank = (s: TestSpecification): number => {
      if (!untimed.has(s.project.name)) return 0
      const i = SLOW_FIRST.indexOf(path(s))
      return i === -1 ? SLOW_FIRST.length : i
    }
    return sorted
      .map((s, i) => ({ s, i, project: projectAt.get(s.project.name) ?? 0, rank: rank(s) }))
      .sort((a, b) => a.project - b.project || a.rank - b.rank || a.i - b.i)
      .map((x) => x.s)
  }
}

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
    sequence: { sequencer: SlowFirstSequencer },
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          // One PostgreSQL server for the project's journal files (a database each).
          globalSetup: ['test/setup/postgres.ts'],
          exclude: [...configDefaults.exclude, ...STEPPED, ...OWN_PROCESS],
          // Each fork keeps its module cache across the files it runs. Isolation re-imported the tree
          // for every file: ~130 s of import and transform CPU per run on 2 cores, more than the tests
          // themselves (measured: 3 min 54 s of CPU isolated against 1 min 41 s shared, same tree).
          // Test files own their state (servers, clocks, stores are built per test).
          isolate: false,
        },
      },
      { extends: true, test: { name: 'stepped', include: STEPPED, isolate: false } },
      { extends: true, test: { name: 'own-process', include: OWN_PROCESS, isolate: true } },
    ],
  },
})

/**
 * The journal's tests run the same cases against SQLite (a temp file) and a real PostgreSQL (the
 * run's one throwaway server, test/setup/postgres.ts, else one per test file; a fresh database per
 * case, named for the fork's pid so forks never share one). Without PostgreSQL the second suite is
 * skipped with a message locally and fails in CI (PERPBOT_REQUIRE_SERVICES=1).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, inject } from 'vitest'
import type { JournalTarget } from '../../src/journal/database.ts'
import { connectPostgres, postgresEnabled, startPostgres, type TestPostgres } from '../helpers/postgres.ts'

export interface Backend {
  name: 'sqlite' | 'postgres'
  /** A fresh, empty database target. */
  fresh(): Promise<JournalTarget>
  /** PostgreSQL only: the server's admin URL (to alter a database under test). */
  adminUrl(): string | undefined
}

let counter = 0

export function describeBackends(title: string, body: (b: Backend) => void): void {
  describe(`${title} (sqlite)`, () => {
    let dir = ''
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'perpbot-journal-'))
    })
    afterAll(() => rmSync(dir, { recursive: true, force: true }))
    body({
      name: 'sqlite',
      fresh: async () => ({ kind: 'sqlite', path: join(dir, `j${++counter}.sqlite`) }),
      adminUrl: () => undefined,
    })
  })
  const enabled = postgresEnabled()
  // The run's server, else one per test file, started by the first suite that needs it and stopped
  // after the file.
  if (enabled) afterAll(stopShared)
  describe.runIf(enabled)(`${title} (postgres)`, () => {
    let server: TestPostgres | undefined
    beforeAll(async () => {
      server = await sharedServer()
    }, 30_000)
    body({
      name: 'postgres',
      fresh: async () => {
        if (server === undefined) throw new Error('postgres did not start')
        return { kind: 'postgres', url: await server.createDatabase(`j${process.pid}_${++counter}`) }
      },
      adminUrl: () => server?.url,
    })
  })
}

let shared: Promise<TestPostgres> | undefined

function sharedServer(): Promise<TestPostgres> {
  const runs = inject('postgresUrl')
  shared ??= runs === undefined ? startPostgres() : connectPostgres(runs)
  return shared
}

async function stopShared(): Promise<void> {
  const s = shared
  shared = undefined
  if (s !== undefined) await (await s).stop()
}

/**
 * Vitest global setup of the shared project: one throwaway PostgreSQL server for the whole run, its
 * URL provided to the test files (`inject('postgresUrl')`, test/journal/backends.ts), which make a
 * database each. A server per file cost each journal file a start (~0.6 s). Spawned, not awaited:
 * the first file that needs it waits until it accepts connections. Without the binaries nothing is
 * provided, and each file skips or fails as test/helpers/postgres.ts says.
 */
import type { TestProject } from 'vitest/node'
import { POSTGRES_AVAILABLE, startPostgres } from '../helpers/postgres.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string | undefined
  }
}

export async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (!POSTGRES_AVAILABLE) {
    project.provide('postgresUrl', undefined)
    return async () => undefined
  }
  // Two forks at once, a few pools each.
  const server = await startPostgres({ wait: false, maxConnections: 100 })
  project.provide('postgresUrl', server.url)
  return () => server.stop()
}

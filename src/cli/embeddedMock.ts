/** Starts the embedded mock for a dry run from the `mock` settings, on 127.0.0.1 and an ephemeral port. */
import { type RunningMock, startMockServer } from '../mock/server.ts'
import type { Settings } from '../settings/schema.ts'

export async function startEmbeddedMock(mock: Settings['mock']): Promise<RunningMock> {
  return startMockServer({
    port: 0,
    seed: mock.seed,
    scenario: mock.scenario,
    clock: mock.clock,
    speed: mock.speed,
    ...(mock.faults !== 'none' || mock.scenario !== 'flaky' ? { faults: mock.faults } : {}),
    exchange: { startingCollateral: mock.startingCollateral },
  })
}

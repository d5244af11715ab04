import { describe, expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import { createBotJournal } from '../../../src/bot/startup/botJournalPart.ts'
import { createLogger } from '../../../src/logging/logger.ts'
import type { PerpsClient } from '../../../src/perps/client/createPerpsClient.ts'

const logger = createLogger({ level: 'silent', pretty: 'never' })

describe('the bot journal part without a journal', () => {
  it('adds no sink, hands the metrics back as the batch recorder, and gives the account nothing', async () => {
    const j = createBotJournal({ journal: undefined, clock: new SimulatedClock(), logger })
    expect(j.alertSinks).toEqual([])
    expect(j.orderStates).toBeUndefined()
    const metrics = { recordBatch: () => undefined }
    expect(j.batchRecorder(metrics)).toBe(metrics)
    expect(await j.account('0xabc', false)).toEqual({
      store: undefined,
      records: undefined,
      pnlBaseline: undefined,
    })
    // No read is made: a client that throws on any use shows it.
    const perps = new Proxy({} as PerpsClient, {
      get: () => {
        throw new Error('no read expected')
      },
    })
    await j.reconcileAtStart(perps, new SimulatedClock())
    j.startSnapshots({
      instruments: [],
      pnl: () => {
        throw new Error('no snapshot expected')
      },
      states: () => [],
    })
    j.stop()
  })
})

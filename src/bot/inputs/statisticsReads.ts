/**
 * How the statistics poller reads: one read of every instrument while its answer fits the response
 * cap; once it does not (a day of 1-minute klines per instrument is ~95 KB each, so ~90 instruments
 * pass the default 8 MiB), per-instrument reads in rotation, as many per cycle as keep each
 * instrument's statistics fresh, within the given weight share. The streams push statistics with
 * only the newest candles, so this is the polling fallback's problem alone.
 */

import { ResponseTooLargeError } from '../../errors.ts'
import type { PerpsClient } from '../../perps/client/createPerpsClient.ts'
import type { StatisticsItem } from '../../perps/schemas/info.ts'
import { PERPS_WEIGHTS } from '../../perps/weights.ts'
import { itemAt } from '../shared/itemAt.ts'

export interface StatisticsReadsOptions {
  perps: Pick<PerpsClient, 'getStatistics'>
  /** The instruments to read (the caller may add to it in place: a reload added one). */
  ids: readonly number[]
  intervalMs: number
  /** Statistics older than this halt an instrument: each must be read well within it. */
  staleMs: number
  /** Request weight per minute the per-instrument reads may use. */
  weightPerMinute: number
  /** Klines kept per instrument (`quoting.klinesKept`): only those are read and validated. */
  klinesKept: number
  logger: { warn(fields: object, message: string): void }
}

/** Instruments read per cycle in rotation: every one within two thirds of `staleMs`, capped by the weight share. */
export function perCycle(o: Omit<StatisticsReadsOptions, 'perps' | 'logger'>): number {
  const weight = PERPS_WEIGHTS.getStatistics.request({})
  const needed = Math.ceil((o.ids.length * o.intervalMs) / ((o.staleMs * 2) / 3))
  const allowed = Math.floor((o.weightPerMinute * o.intervalMs) / 60_000 / weight)
  return Math.max(1, Math.min(o.ids.length, needed, allowed))
}

export function createStatisticsReads(
  o: StatisticsReadsOptions,
): (signal: AbortSignal) => Promise<StatisticsItem[]> {
  let rotating = false
  let cursor = 0
  return async (signal) => {
    const n = perCycle(o)
    if (!rotating) {
      try {
        return await o.perps.getStatistics(undefined, { signal, newestKlines: o.klinesKept })
      } catch (e) {
        if (!(e instanceof ResponseTooLargeError)) throw e
        rotating = true
        const cycleS = Math.ceil((Math.ceil(o.ids.length / n) * o.intervalMs) / 1000)
        o.logger.warn(
          { instruments: o.ids.length, perCycle: n, limitBytes: e.limitBytes },
          `statistics of every instrument exceed the response cap (${e.limitBytes} bytes): reading ${n} instrument(s) per poll in rotation, each every ${cycleS} s${cycleS * 1000 > o.staleMs ? ', longer than quoting.staleStatisticsMs: use the streams or fewer instruments' : ''}`,
        )
      }
    }
    const items: StatisticsItem[] = []
    for (let k = 0; k < n && o.ids.length > 0; k++) {
      const id = itemAt(o.ids, cursor % o.ids.length)
      cursor = (cursor + 1) % o.ids.length
      items.push(
        ...(await o.perps.getStatistics({ instrumentId: id }, { signal, newestKlines: o.klinesKept })),
      )
    }
    return items
  }
}

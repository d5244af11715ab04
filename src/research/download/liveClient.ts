/**
 * What `download --live` builds: the perps client on the venue's address, gated by the bot's weight
 * limiter with the download's own request budget (so a download beside a running bot on the same IP
 * leaves it room), and the live source over it. Tests build the same thing on the mock's address.
 */
import { type Clock, systemClock } from '../../clock.ts'
import type { RetryPolicy } from '../../http/callJson.ts'
import { createPerpsClient } from '../../perps/client/createPerpsClient.ts'
import { createWeightLimiter } from '../../perps/throttle/weightLimiter.ts'
import { LiveHistorySource, type LiveKlineInterval } from './liveSource.ts'

export interface LiveDownloadOptions {
  baseUrl: string
  interval: LiveKlineInterval
  /** Request weight per minute the download may spend (the venue allows 1,000 per IP). */
  budgetPerMinute: number
  signal?: AbortSignal | undefined
  clock?: Clock | undefined
  /** The client's read retries (default its own: 3 attempts). */
  readRetry?: RetryPolicy | undefined
}

export interface LiveDownload {
  source: LiveHistorySource
  /** Request weight the limiter let through so far. */
  weightSpent(): number
  close(): Promise<void>
}

/**
 * @throws {@link ConfigError} for an address that is not a URL or a budget the limiter refuses.
 */
export function openLiveDownload(o: LiveDownloadOptions): LiveDownload {
  const clock = o.clock ?? systemClock
  // Nothing here is risk work: the whole budget is the reads'.
  const limiter = createWeightLimiter({
    requestBudget: o.budgetPerMinute,
    headroom: 1,
    riskReserve: 0,
    clock,
  })
  let spent = 0
  const client = createPerpsClient({
    baseUrl: o.baseUrl,
    clock,
    readRetry: o.readRetry,
    gate: {
      admit: async (request) => {
        const admission = await limiter.admit(request)
        spent += request.requestWeight
        return admission
      },
    },
  })
  return {
    source: new LiveHistorySource({ client, baseUrl: o.baseUrl, interval: o.interval, signal: o.signal }),
    weightSpent: () => spent,
    async close() {
      await limiter.stop()
      await client.close()
    },
  }
}

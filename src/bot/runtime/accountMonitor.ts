/**
 * The account monitor's I/O: polls withdrawals (incrementally), funding charges and credentials,
 * takes the portfolio from the portfolio feed, and turns `AccountWatch` decisions into alerts.
 * Withdrawals are read from the oldest still-pending one (or the last poll, minus an overlap) so a
 * status change of an older withdrawal is never missed, and pages are bounded.
 */
import type { Alert, AlertSink } from '../../alerts/alert.ts'
import type { Clock } from '../../clock.ts'
import type { Logger } from '../../logging/logger.ts'
import type { PerpsClient } from '../../perps/client/createPerpsClient.ts'
import type { Fill, FundingCharge, Portfolio, Withdrawal } from '../../perps/schemas/account.ts'
import type { Settings } from '../../settings/schema.ts'
import type { AccountWatch } from '../monitor/accountWatch.ts'
import { type FeedHealth, startFeedPoller } from './feedHealth.ts'
import type { Poller } from './poller.ts'

export interface AccountMonitorOptions {
  perps: PerpsClient
  clock: Clock
  logger: Logger
  watch: AccountWatch
  alerts: AlertSink
  polling: Settings['polling']
  proxyAddress: string
  /** Known expiry of our proxy (a dry run knows it; live reads credentials). */
  proxyExpiry: number | undefined
  /** 429s in the recent window. */
  rateLimitCount: () => number
  /** Each new fill and funding charge, once, oldest first (the PnL ledger). */
  onFill?: ((fill: Fill) => void) | undefined
  onFunding?: ((charge: FundingCharge) => void) | undefined
  health: Pick<FeedHealth, 'failed' | 'succeeded' | 'register' | 'cycled'>
}

export interface AccountMonitor {
  observePortfolio(p: Portfolio): void
  observeClockSkew(offsetMs: number): void
  readonly fundingCharges: number
  readonly lastFunding: FundingCharge | undefined
  stop(): Promise<void>
}

const FIRST_LOOKBACK_MS = 24 * 3_600_000
const OVERLAP_MS = 60_000
const MAX_PAGES = 10

export function startAccountMonitor(o: AccountMonitorOptions): AccountMonitor {
  const emit = (alerts: readonly Alert[]): void => {
    for (const a of alerts) o.alerts.send(a)
  }
  const pollers: Poller[] = []
  const poll = (name: string, intervalMs: number, run: (signal: AbortSignal) => Promise<void>): void => {
    pollers.push(
      startFeedPoller({
        name,
        clock: o.clock,
        logger: o.logger,
        health: o.health,
        intervalMs: () => intervalMs,
        run,
      }),
    )
  }

  let lastWithdrawalPoll: number | undefined
  poll('withdrawals', o.polling.withdrawalsMs, async (signal) => {
    const now = o.clock.now()
    const from = Math.min(
      o.watch.oldestPendingCreatedAt() ?? Number.POSITIVE_INFINITY,
      (lastWithdrawalPoll ?? now - FIRST_LOOKBACK_MS) - OVERLAP_MS,
    )
    const rows: Withdrawal[] = []
    for await (const w of o.perps.iterateWithdrawals(
      { startTimestamp: Math.max(0, from) },
      { maxPages: MAX_PAGES, signal },
    )) {
      rows.push(w)
    }
    emit(o.watch.observeWithdrawals(rows, o.clock.now()))
    lastWithdrawalPoll = now
  })

  let lastFundingTs: number | undefined
  let fundingCharges = 0
  let lastFunding: FundingCharge | undefined
  poll('funding', o.polling.fundingMs, async (signal) => {
    const now = o.clock.now()
    const from = lastFundingTs === undefined ? now - 3_600_000 : lastFundingTs + 1
    const fresh: FundingCharge[] = []
    for await (const c of o.perps.iterateFunding({ startTimestamp: from }, { maxPages: MAX_PAGES, signal }))
      fresh.push(c)
    fresh.sort((a, b) => a.timestamp - b.timestamp)
    for (const c of fresh) {
      fundingCharges++
      lastFunding = c
      lastFundingTs = Math.max(lastFundingTs ?? 0, c.timestamp)
      o.onFunding?.(c)
      o.logger.info(
        { instrumentId: c.instrument_id, funding: c.funding, rate: c.funding_rate, size: c.size },
        `funding charge ${c.funding} ${c.funding_asset} on instrument ${c.instrument_id}`,
      )
    }
    if (lastFundingTs === undefined) lastFundingTs = now
  })

  // Fills: read from the last one seen (minus an overlap; the ledger drops repeats), oldest first.
  let lastFillTs: number | undefined
  poll('fills', o.polling.fillsMs, async (signal) => {
    const now = o.clock.now()
    const from = lastFillTs === undefined ? now - OVERLAP_MS : lastFillTs - OVERLAP_MS
    const fresh: Fill[] = []
    for await (const f of o.perps.iterateFills(
      { startTimestamp: Math.max(0, from) },
      { maxPages: MAX_PAGES, signal },
    ))
      fresh.push(f)
    fresh.sort((a, b) => a.ts - b.ts)
    for (const f of fresh) {
      lastFillTs = Math.max(lastFillTs ?? 0, f.ts)
      o.onFill?.(f)
    }
    if (lastFillTs === undefined) lastFillTs = now
  })

  let proxyExpiry = o.proxyExpiry
  poll('credentials', o.polling.credentialsMs, async (signal) => {
    const creds = await o.perps.getCredentials({ signal })
    const mine = creds.keys.find((k) => k.proxy.toLowerCase() === o.proxyAddress.toLowerCase())
    proxyExpiry = mine?.expiry ?? proxyExpiry
    emit(o.watch.observeProxyExpiry(proxyExpiry, o.clock.now()))
  })

  return {
    observePortfolio(p) {
      const now = o.clock.now()
      emit(o.watch.observePortfolio(p, now))
      emit(o.watch.observeRateLimits(o.rateLimitCount(), now))
      emit(o.watch.checkPending(now))
    },
    observeClockSkew(offsetMs) {
      emit(o.watch.observeClockSkew(offsetMs, o.clock.now()))
    },
    get fundingCharges() {
      return fundingCharges
    },
    get lastFunding() {
      return lastFunding
    },
    async stop() {
      await Promise.all(pollers.map((p) => p.stop()))
    },
  }
}

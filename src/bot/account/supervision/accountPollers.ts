/**
 * The account monitor's I/O: polls withdrawals (incrementally), funding charges and credentials,
 * takes the portfolio from the portfolio feed, and turns `AccountWatch` decisions into alerts. Fills
 * and withdrawals also arrive from the streams; their pollers stand down behind their gates then.
 * Withdrawals are read from the oldest still-pending one (or the last poll, minus an overlap) so a
 * status change of an older withdrawal is never missed, and pages are bounded.
 */
import type { Alert, AlertSink } from '../../../alerts/alert.ts'
import type { Clock } from '../../../clock.ts'
import type { Logger } from '../../../logging/logger.ts'
import type { PerpsClient } from '../../../perps/client/createPerpsClient.ts'
import type { Fill, FundingCharge, Portfolio, Withdrawal } from '../../../perps/schemas/account.ts'
import type { Deposit } from '../../../perps/schemas/accountState.ts'
import type { WithdrawalPush } from '../../../perps/stream/pushSchemas.ts'
import type { Settings } from '../../../settings/schema.ts'
import { gatedRun, type InputGate } from '../../inputs/inputGates.ts'
import { type PollerHealth, startHealthyPoller } from '../../inputs/pollerHealth.ts'
import type { Poller } from '../../shared/poller.ts'
import type { AccountWatch } from '../accountWatch.ts'

export interface AccountPollersOptions {
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
  /** Requests refused at the venue's open-order cap in the recent window. */
  openOrderCapCount: () => number
  /** Each new fill and funding charge, once, oldest first (the PnL ledger). */
  onFill?: ((fill: Fill) => void) | undefined
  onFunding?: ((charge: FundingCharge) => void) | undefined
  /** Each withdrawal the first time it is seen and each time its status or hash changes (the journal). */
  onWithdrawal?: ((w: Withdrawal) => void) | undefined
  /**
   * Each deposit the first time it is seen and each time its status changes (the journal). Deposits
   * are polled (`polling.depositsMs`) only when someone takes them.
   */
  onDeposit?: ((d: Deposit) => void) | undefined
  health: Pick<PollerHealth, 'failed' | 'succeeded' | 'register' | 'cycled'>
  /** Gates of the streamed inputs: these pollers stand down while the stream serves them. */
  gates?: { fills?: InputGate | undefined; withdrawals?: InputGate | undefined } | undefined
}

export interface AccountPollers {
  observePortfolio(p: Portfolio): void
  /** A fill pushed on the stream (the ledger drops the REST read's repeat by fill id). */
  observeFill(f: Fill): void
  /** A withdrawal's pushed state; one the bot has not read yet is read over REST. */
  observeWithdrawal(w: WithdrawalPush): void
  observeClockSkew(offsetMs: number): void
  /**
   * Reads the fills over REST now, even while the stream serves them: the venue traded without us
   * (a liquidation's fills are not pushed; liquidationWatch.ts).
   */
  readFillsNow(): void
  readonly fundingCharges: number
  readonly lastFunding: FundingCharge | undefined
  stop(): Promise<void>
}

const FIRST_LOOKBACK_MS = 24 * 3_600_000
const OVERLAP_MS = 60_000
const MAX_PAGES = 10
/** Withdrawals remembered for merging pushed states (the push lacks timestamps and confirmations). */
const KNOWN_WITHDRAWALS = 1_000

export function startAccountPollers(o: AccountPollersOptions): AccountPollers {
  const emit = (alerts: readonly Alert[]): void => {
    for (const a of alerts) o.alerts.send(a)
  }
  const pollers: Poller[] = []
  const poll = (
    name: string,
    intervalMs: number,
    run: (signal: AbortSignal) => Promise<void>,
    gate?: InputGate | undefined,
  ): Poller => {
    const poller = startHealthyPoller({
      name,
      clock: o.clock,
      logger: o.logger,
      health: o.health,
      intervalMs: () => intervalMs,
      run: gatedRun(gate, run),
    })
    gate?.onResume(() => poller.trigger())
    pollers.push(poller)
    return poller
  }

  const known = new Map<number, Withdrawal>()
  const remember = (w: Withdrawal): void => {
    const prev = known.get(w.withdraw_id)
    if (o.onWithdrawal && (prev === undefined || prev.status !== w.status || prev.hash !== w.hash))
      o.onWithdrawal(w)
    known.delete(w.withdraw_id)
    known.set(w.withdraw_id, w)
    if (known.size > KNOWN_WITHDRAWALS) {
      const oldest = known.keys().next()
      if (!oldest.done) known.delete(oldest.value)
    }
  }
  let lastWithdrawalPoll: number | undefined
  poll(
    'withdrawals',
    o.polling.withdrawalsMs,
    async (signal) => {
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
      for (const w of rows) remember(w)
      emit(o.watch.observeWithdrawals(rows, o.clock.now()))
      lastWithdrawalPoll = now
    },
    o.gates?.withdrawals,
  )

  // Deposits: from the oldest still-pending one (or the last poll, minus an overlap), like withdrawals.
  const onDeposit = o.onDeposit
  if (onDeposit !== undefined) {
    const depositStatus = new Map<string, string>()
    const pendingDeposits = new Map<string, number>()
    let lastDepositPoll: number | undefined
    poll('deposits', o.polling.depositsMs, async (signal) => {
      const now = o.clock.now()
      const oldestPending = Math.min(...pendingDeposits.values())
      const from = Math.min(oldestPending, (lastDepositPoll ?? now - FIRST_LOOKBACK_MS) - OVERLAP_MS)
      const rows: Deposit[] = []
      for await (const d of o.perps.iterateDeposits(
        { startTimestamp: Math.max(0, from) },
        { maxPages: MAX_PAGES, signal },
      ))
        rows.push(d)
      rows.sort((a, b) => a.created_timestamp - b.created_timestamp)
      for (const d of rows) {
        if (d.status === 'pending') pendingDeposits.set(d.hash, d.created_timestamp)
        else pendingDeposits.delete(d.hash)
        if (depositStatus.get(d.hash) === d.status) continue
        depositStatus.delete(d.hash)
        depositStatus.set(d.hash, d.status)
        if (depositStatus.size > KNOWN_WITHDRAWALS) {
          const oldest = depositStatus.keys().next()
          if (!oldest.done) depositStatus.delete(oldest.value)
        }
        onDeposit(d)
      }
      lastDepositPoll = now
    })
  }

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
  const fillsPoller = poll(
    'fills',
    o.polling.fillsMs,
    async (signal) => {
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
    },
    o.gates?.fills,
  )

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
      emit(o.watch.observeOpenOrderCap(o.openOrderCapCount(), now))
      emit(o.watch.checkPending(now))
    },
    observeFill(f) {
      // Only a synced stream moves the read's start: after a gap the resync reads from before it.
      if (o.gates?.fills?.standingDown() === true && lastFillTs !== undefined)
        lastFillTs = Math.max(lastFillTs, f.ts)
      o.onFill?.(f)
    },
    observeWithdrawal(w) {
      const row = known.get(w.withdraw_id)
      if (row === undefined || row.asset !== w.asset) {
        o.gates?.withdrawals?.want()
        return
      }
      const next: Withdrawal = { ...row, status: w.status }
      remember(next)
      emit(o.watch.observeWithdrawals([next], o.clock.now()))
    },
    observeClockSkew(offsetMs) {
      emit(o.watch.observeClockSkew(offsetMs, o.clock.now()))
    },
    readFillsNow() {
      // Behind a gate, `want` resumes the poller for one read (and keeps the stream as the source).
      if (o.gates?.fills !== undefined) o.gates.fills.want()
      else fillsPoller.trigger()
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

/**
 * Account supervision: the pure `AccountWatch` (alert episodes with hysteresis), its journal (live
 * runs keep episodes across restarts so an ongoing one does not alert again), and the pollers that
 * feed it (withdrawals, funding, credentials). The portfolio and the clock skew arrive from the pollers and streams.
 */
import { resolve as resolvePath } from 'node:path'
import type { Alert, AlertSink } from '../../../alerts/alert.ts'
import type { EpisodeRestore } from '../../../alerts/episodes.ts'
import type { Clock } from '../../../clock.ts'
import { describeError } from '../../../errors.ts'
import { componentLogger, type Logger } from '../../../logging/logger.ts'
import type { PerpsClient } from '../../../perps/client/createPerpsClient.ts'
import type { Fill, FundingCharge, Portfolio, Withdrawal } from '../../../perps/schemas/account.ts'
import type { Deposit } from '../../../perps/schemas/accountState.ts'
import type { WithdrawalPush } from '../../../perps/stream/pushSchemas.ts'
import type { Settings } from '../../../settings/schema.ts'
import type { InputGates } from '../../inputs/inputGates.ts'
import type { PollerHealth } from '../../inputs/pollerHealth.ts'
import { AccountWatch, type AccountWatchSnapshot } from '../accountWatch.ts'
import { LiquidationWatch } from '../liquidationWatch.ts'
import {
  type LedgerFill,
  type OpeningInventory,
  type PnlBaseline,
  PnlLedger,
  type PnlSnapshot,
  positionAfter,
} from '../pnlLedger.ts'
import { startAccountPollers } from './accountPollers.ts'
import { createStateStore, type StateStore } from './stateStore.ts'

/**
 * Where fills and funding go once the ledger accepted them, and withdrawals each time one is new or
 * changes (the journal, when the bot keeps one).
 */
export interface AccountRecords {
  fill(f: Fill): void
  funding(c: FundingCharge): void
  withdrawal(w: Withdrawal): void
  /** Each deposit new or changed (polled; the journal keeps it unique on its hash). */
  deposit(d: Deposit): void
  /** The opening inventory, once, when the account's first run sets it aside (kept across restarts). */
  opening?(o: OpeningInventory): void
}

export interface AccountSupervision {
  observePortfolio(p: Portfolio): void
  /** A fill pushed on the stream: logged and into the ledger once (REST repeats dropped by fill id). */
  observeFill(f: Fill): void
  observeWithdrawal(w: WithdrawalPush): void
  /** Fills, funding and positions since start, per instrument and for the account. */
  pnl(): PnlSnapshot
  /** The latest fills (bounded), oldest first. */
  recentFills(): LedgerFill[]
  observeClockSkew(offsetMs: number): void
  snapshot(): AccountWatchSnapshot
  /** Funding charges seen since start. */
  readonly fundingCharges: number
  /** Stops the pollers and writes the journal one last time. */
  stop(): Promise<void>
}

export function createAccountSupervision(o: {
  settings: Settings
  perps: PerpsClient
  clock: Clock
  logger: Logger
  /**
   * Where the watch's alerts go (the alert hub), and where the episodes restored open at a restart go
   * without being sent again (the hub's book: the dashboard's board shows them).
   */
  alerts: AlertSink & EpisodeRestore
  health: PollerHealth
  /** The proxy key the bot signs with (the connection). */
  proxy: { readonly proxyAddress: string; readonly proxyExpiry: number | undefined }
  /** The limiter's recent-window counts: 429s, and requests refused at the venue's open-order cap. */
  limits: { rateLimitCount(): number; openOrderCapCount(): number }
  /** Traded instruments: ids for the ledger, symbols for the fill log lines. */
  instruments: readonly { id: number; symbol: string }[]
  /** Keep alert episodes across restarts (live); a dry run is a fresh throwaway account every time. */
  journal: boolean
  /** Where restart state lives (the journal's database); default: JSON files in `ops.stateDir`. */
  store?: StateStore | undefined
  /** Fills and funding the ledger accepted, recorded once each. */
  records?: AccountRecords | undefined
  /** The ledger's start at a restart (the journal's totals for this account); default zero. */
  pnlBaseline?: PnlBaseline | undefined
  /** Fills and withdrawals stream: their pollers stand down while the stream serves them. */
  inputGates?: InputGates | undefined
}): AccountSupervision {
  const log = componentLogger(o.logger, 'monitor')
  const watch = new AccountWatch(o.settings.monitor)
  const store: StateStore | undefined = !o.journal
    ? undefined
    : o.store !== undefined
      ? o.store
      : createStateStore(resolvePath(o.settings.ops.stateDir), (e) =>
          log.warn({ err: describeError(e) }, 'cannot write the state journal'),
        )
  // Keyed by proxy: the account's key.
  const name = `account-watch-${o.proxy.proxyAddress.toLowerCase()}`
  const saved = store?.read(name)
  if (saved) {
    watch.importState(saved)
    const open = watch.restoredEpisodes(o.clock.now())
    o.alerts.restoreOpen(open)
    log.info(
      { open: open.map((a) => `${a.key} ${a.severity}`) },
      `restored alert episodes from the state journal: ${open.length} open`,
    )
  }
  let lastSaved = JSON.stringify(watch.exportState())
  const persist = (): void => {
    const now = JSON.stringify(watch.exportState())
    if (now === lastSaved) return
    lastSaved = now
    store?.write(name, watch.exportState())
  }
  const alerts: AlertSink = {
    send(a: Alert) {
      o.alerts.send(a)
      persist()
    },
  }
  // Collateral decimals make withdrawal alerts read "250 pUSD", not "250000000 pUSD".
  o.perps
    .getAssets()
    .then((assets) => watch.setAssets(assets))
    .catch((e: unknown) => log.warn({ err: describeError(e) }, 'cannot read the collateral assets'))
  // PnL since start: a position held before the start is the opening inventory, marked at the start;
  // with a journal's history (a restart), the totals continue from it instead.
  const ledger = new PnlLedger({
    sinceStart: true,
    baseline: o.pnlBaseline,
    onOpening: o.records?.opening && ((x) => o.records?.opening?.(x)),
    now: () => o.clock.now(),
  })
  const symbolOf = (iid: number): string => o.instruments.find((i) => i.id === iid)?.symbol ?? `#${iid}`
  // A liquidation's fills are not pushed: its signs in a portfolio read the fills over REST at once.
  const liquidations = new LiquidationWatch()
  const fillsGate = o.inputGates?.gate('fills')
  const onFill = (f: Fill): void => {
    if (!ledger.applyFill(f)) return
    liquidations.observeFill(f.iid)
    o.records?.fill(f)
    const side = f.side === 'long' ? 'bought' : f.side === 'short' ? 'sold' : f.side
    const after = positionAfter(f)
    o.logger.info(
      {
        fill: { tid: f.tid, oid: f.oid, instrument: symbolOf(f.iid), side: f.side, price: f.p, size: f.qty },
        fee: f.fee,
        feeAsset: f.fea,
        liquidity: f.taker ? 'taker' : 'maker',
        position: after,
        positionBefore: f.psz,
        realizedPnl: f.pnl,
        liquidation: f.liq,
      },
      `fill: ${side} ${f.qty} ${symbolOf(f.iid)} @ ${f.p} (${f.taker ? 'taker' : 'maker'}${f.liq ? ', liquidation' : ''}), fee ${f.fee} ${f.fea}, position after ${after}, realized ${f.pnl} ${f.fea}`,
    )
  }
  const monitor = startAccountPollers({
    perps: o.perps,
    clock: o.clock,
    logger: log,
    watch,
    alerts,
    polling: o.settings.polling,
    proxyAddress: o.proxy.proxyAddress,
    proxyExpiry: o.proxy.proxyExpiry,
    rateLimitCount: o.limits.rateLimitCount,
    openOrderCapCount: o.limits.openOrderCapCount,
    onFill,
    onWithdrawal: o.records && ((w) => o.records?.withdrawal(w)),
    onDeposit: o.records && ((d) => o.records?.deposit(d)),
    onFunding: (c) => {
      if (ledger.applyFunding(c)) o.records?.funding(c)
    },
    health: o.health,
    gates: o.inputGates && {
      fills: o.inputGates.gate('fills'),
      withdrawals: o.inputGates.gate('withdrawals'),
    },
  })
  return {
    observePortfolio: (p) => {
      monitor.observePortfolio(p)
      const sign = liquidations.observePortfolio(p, o.clock.now())
      // A position moved while our fills are polled: the poll reads the fills that moved it anyway.
      const polled = fillsGate === undefined || !fillsGate.standingDown()
      if (sign !== undefined && !(sign === 'position moved without our fills' && polled)) {
        log.info({ sign }, `reading the account's fills now: ${sign}`)
        monitor.readFillsNow()
      }
      ledger.observePositions(
        p.positions,
        o.instruments.map((i) => i.id),
      )
    },
    observeFill: (f) => monitor.observeFill(f),
    observeWithdrawal: (w) => monitor.observeWithdrawal(w),
    pnl: () => ledger.snapshot(),
    recentFills: () => ledger.recentFills(),
    observeClockSkew: (offsetMs) => monitor.observeClockSkew(offsetMs),
    snapshot: () => watch.snapshot(),
    get fundingCharges() {
      return monitor.fundingCharges
    },
    async stop() {
      await monitor.stop()
      persist()
    },
  }
}

/**
 * The bot's account supervision, from the parts before it: the proxy of the connection, the limiter's
 * recent counts, the journal's store, records and baseline (`journal.account`), and the input gates.
 * A self-provisioned account is new each start: its alert episodes are not kept.
 */
export function createBotAccountSupervision(
  o: Omit<Parameters<typeof createAccountSupervision>[0], 'proxy' | 'limits' | 'journal' | 'inputGates'> & {
    selfProvision: boolean
    conn: { readonly proxyAddress: string; readonly proxyExpiry: number | undefined }
    limits: { rateLimitCount(): number; openOrderCapCount(): number }
    gates: InputGates
  },
): AccountSupervision {
  return createAccountSupervision({
    ...o,
    proxy: o.conn,
    limits: o.limits,
    journal: !o.selfProvision,
    inputGates: o.gates,
  })
}

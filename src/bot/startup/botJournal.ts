/**
 * The bot's joints to the journal (src/journal): what startBot hands it and when. Each piece is a
 * small adapter from the bot's own types to the journal's records; the journal never sees the bot.
 *  - alerts: a sink on the alert hub (raised and resolved episodes);
 *  - restart state: a `StateStore` over the journal's `state` table (replaces the JSON files), read
 *    once at start;
 *  - fills and funding: what the PnL ledger accepted (first sight), as the venue reported it;
 *  - reconcile at start: the venue's history since the last journaled row, through the gated client;
 *  - a PnL snapshot per instrument per minute (bot clock), with the instrument's state.
 */
import type { Alert, AlertSink } from '../../alerts/alert.ts'
import type { Clock, TimerId } from '../../clock.ts'
import { describeError } from '../../errors.ts'
import type { Journal, JournalStats } from '../../journal/journal.ts'
import { claimUnknownRows, domainVenue, UNKNOWN_ACCOUNT } from '../../journal/journalScope.ts'
import { openingStateName, openingValue } from '../../journal/opening.ts'
import { depositTransfer, fillInput, fundingInput, perpsHistory } from '../../journal/perpsHistory.ts'
import { loadPnlBaseline } from '../../journal/pnlBaseline.ts'
import { loadJournalHistory } from '../../journal/reading/history.ts'
import { ASSETS_STATE, newestRecordAt, SYMBOLS_STATE } from '../../journal/reading/reportQueries.ts'
import { reconcileAtStart } from '../../journal/reconcile.ts'
import type { CommandItem } from '../../journal/records.ts'
import type { Logger } from '../../logging/logger.ts'
import { coalescedHistory, HISTORY_DEFAULT_SPAN_MS, type HistorySource } from '../../ops/dashboard/history.ts'
import type { PerpsClient } from '../../perps/client/createPerpsClient.ts'
import type { Fill, FundingCharge, Withdrawal } from '../../perps/schemas/account.ts'
import type { Deposit } from '../../perps/schemas/accountState.ts'
import type { Order } from '../../perps/schemas/orders.ts'
import type { OpeningInventory, PnlBaseline, PnlSnapshot } from '../account/pnlLedger.ts'
import type { AccountRecords } from '../account/supervision/accountSupervision.ts'
import type { StateStore } from '../account/supervision/stateStore.ts'
import type { BatchSettled } from '../orders/batcher.ts'
import type { OrderStateRecorder } from '../orders/openOrderBook.ts'
import type { BatchRecorder } from '../orders/orderDesk.ts'
import { SLICE } from '../shared/slices.ts'

/** Alerts into the journal: one row per raise and per resolve. */
export function journalAlertSink(journal: Journal): AlertSink {
  return {
    send(a: Alert) {
      journal.alert({
        key: a.key.slice(0, 120),
        severity: a.severity,
        title: a.title.slice(0, 200),
        message: a.message.slice(0, 1_000),
        resolved: a.resolved === true,
        at: a.at,
      })
    },
  }
}

/**
 * The journal's database lost mid-run: one `journal` alert episode, raised when writes start failing
 * (trading goes on, rows are buffered within a bound) and resolved once when they succeed again.
 */
export function journalHealthAlerts(o: {
  journal: Pick<Journal, 'watchState' | 'stats'>
  alerts: AlertSink
  clock: Clock
}): { stop(): void } {
  let raised = false
  const observe = (state: string, s: JournalStats): void => {
    if (state === 'failing' && !raised) {
      raised = true
      o.alerts.send({
        key: 'journal',
        severity: 'warning',
        title: 'Journal database lost',
        message: `Cannot write the journal at ${s.where} (${s.lastError ?? 'unknown error'}). Trading goes on; up to ${s.capacity} rows are buffered${s.droppedTotal > 0 ? `, ${s.droppedTotal} dropped so far` : ''}.`,
        details: { where: s.where, capacity: s.capacity, dropped: s.droppedTotal },
        at: o.clock.now(),
      })
    } else if (state === 'ok' && raised) {
      raised = false
      o.alerts.send({
        key: 'journal',
        severity: 'warning',
        title: 'Journal database back',
        message: `The journal at ${s.where} is written again${s.droppedTotal > 0 ? `; ${s.droppedTotal} row(s) could not be kept while it was away` : '; nothing was dropped'}.`,
        details: { where: s.where, dropped: s.droppedTotal },
        resolved: true,
        at: o.clock.now(),
      })
    }
  }
  const unsubscribe = o.journal.watchState(observe)
  const now = o.journal.stats()
  if (now.state === 'failing') observe('failing', now)
  return { stop: unsubscribe }
}

/** A `StateStore` over the journal, its named values read once here (the store's `read` is synchronous). */
export async function journalStateStore(journal: Journal, names: readonly string[]): Promise<StateStore> {
  const loaded = new Map<string, unknown>()
  for (const n of names) loaded.set(n, await journal.loadState(n))
  return {
    read(name: string): object | undefined {
      const v = loaded.get(name)
      return v !== null && typeof v === 'object' ? v : undefined
    },
    write(name, value) {
      loaded.set(name, value)
      journal.saveState(name, value)
    },
  }
}

/**
 * Every settled batch into the journal beside the metrics: kind, the items with the venue's answer per
 * item, latency and weight. Values only (the batch's own objects are read here, copied and validated
 * by the writer later); nothing awaits.
 */
export function journalBatchRecorder(journal: Journal, clock: Clock, metrics: BatchRecorder): BatchRecorder {
  return {
    recordBatch(b) {
      metrics.recordBatch(b)
      const s = b.settled
      journal.command({
        ts: clock.now(),
        kind: b.command.slice(0, 32),
        items: s === undefined ? [] : commandItems(s),
        itemCount: b.size,
        outcome: b.outcome === 'error' ? 'rejected' : b.outcome,
        ...(s?.error === undefined ? {} : { error: describeError(s.error).slice(0, 200) }),
        ...(s === undefined ? {} : { latencyMs: Math.max(0, s.latencyMs), weight: s.weight }),
      })
    },
  }
}

/** The venue's answer to one item: ok, its error, or unknown when the batch had no answer. */
function answerOf(
  r: BatchSettled['items'][number]['result'],
  outcome: BatchSettled['outcome'],
): Pick<CommandItem, 'answer' | 'error'> & { oid?: number } {
  if (r === undefined) return { answer: outcome === 'error' ? 'rejected' : 'unknown' }
  if (r.status === 'err') return { answer: 'rejected', error: r.error.slice(0, 200) }
  const oid = 'oid' in r && typeof r.oid === 'number' ? r.oid : undefined
  return oid === undefined ? { answer: 'ok' } : { answer: 'ok', oid }
}

/** A settled batch's items as the journal keeps them (order parameters and answer; nothing signed). */
export function commandItems(s: BatchSettled): CommandItem[] {
  switch (s.type) {
    case 'createOrders':
      return s.items.map(({ iid, item, result }) => {
        const a = answerOf(result, s.outcome)
        return {
          op: 'create',
          iid,
          side: item.buy ? 'buy' : 'sell',
          qty: item.qty,
          ...(item.p === undefined ? {} : { price: item.p }),
          ...(item.coid === undefined ? {} : { coid: item.coid }),
          ...a,
        }
      })
    case 'modifyOrders':
      return s.items.map(({ iid, item, result }) => ({
        op: 'modify',
        iid,
        price: item.p,
        qty: item.qty,
        ...answerOf(result, s.outcome),
        oid: item.oid,
      }))
    case 'cancelOrders':
      return s.items.map(({ iid, item, result }) => ({
        op: 'cancel',
        iid,
        ...answerOf(result, s.outcome),
        oid: item,
      }))
  }
}

/**
 * Fills and funding the ledger saw for the first time (stream or poll), and each withdrawal and deposit
 * new or changed (the polls and the pushes), into the journal.
 */
export function journalAccountRecords(journal: Journal, clock: Clock): AccountRecords {
  return {
    // Once per account: the first run's positions and marks, carried by every later start.
    opening: (o: OpeningInventory) => journal.saveState(openingStateName(journal.scope()), openingValue(o)),
    fill: (f: Fill) => journal.fill(fillInput(f), 'live'),
    funding: (c: FundingCharge) => journal.funding(fundingInput(c)),
    withdrawal: (w: Withdrawal) =>
      journal.transfer({
        kind: 'withdrawal',
        id: String(w.withdraw_id),
        asset: w.asset.slice(0, 16),
        amount: w.amount,
        fee: w.fee,
        status: String(w.status).slice(0, 32),
        ts: w.created_timestamp,
        updatedAt: clock.now(),
      }),
    deposit: (d: Deposit) => journal.transfer(depositTransfer(d, clock.now())),
  }
}

/** The venue's order state changes (pushes, and what a read found changed) into the journal. */
export function journalOrderStates(journal: Journal): OrderStateRecorder {
  const event = (x: Order, state: string, ts: number): void =>
    journal.orderEvent({
      ts,
      iid: x.iid,
      oid: x.oid,
      ...(x.coid === undefined ? {} : { coid: x.coid.slice(0, 64) }),
      state: state.slice(0, 32),
      price: x.p,
      qty: x.qty,
      filled: x.fill,
    })
  return {
    order: (x) => event(x, String(x.status), x.uts),
    gone: (x, at) => event(x, 'gone', at),
  }
}

/** The pollers' first reads reach back at most an hour (funding): ids of the last two are remembered. */
const RECENT_IDS_MS = 2 * 3_600_000
/**
 * Fills and funding dated more than a week back are final (decision, issue 34): their sums are kept
 * as a checkpoint for the next start, which checks the counts before trusting it.
 */
const BASELINE_FINAL_MS = 7 * 86_400_000

/**
 * The PnL ledger's start at a restart: the account's fills and funding in the journal (after the
 * reconcile added the time the bot was down). Unreadable: zero, with a warning (PnL since this start).
 */
export async function journalPnlBaseline(
  journal: Journal,
  clock: Clock,
  logger: Logger,
): Promise<PnlBaseline | undefined> {
  try {
    const b = await loadPnlBaseline(journal.db, {
      recentSince: clock.now() - RECENT_IDS_MS,
      scope: journal.scope(),
      checkpointBefore: clock.now() - BASELINE_FINAL_MS,
      saveCheckpoint: (name, value) => journal.saveState(name, value),
    })
    logger.info(
      {
        instruments: Object.keys(b.instruments).length,
        since: b.opening === undefined ? undefined : new Date(b.opening.at).toISOString(),
        opening: b.opening?.instruments,
      },
      b.opening === undefined
        ? "PnL ledger starts from the journal (fills and funding since the account's first record)"
        : `PnL ledger starts from the journal: since ${new Date(b.opening.at).toISOString()}, the opening inventory of the account's first run set aside`,
    )
    return b
  } catch (e) {
    logger.warn(
      { err: describeError(e) },
      'cannot read the PnL baseline from the journal; PnL counts from now',
    )
    return undefined
  }
}

/** At start, before quoting: the venue's fills and funding since the last journaled ones, inserted once. */
export async function reconcileJournalAtStart(o: {
  journal: Journal
  perps: PerpsClient
  clock: Clock
  logger: Logger
  /** Pages per kind (each a weight-10 read through the limiter). */
  maxPages: number
  firstLookbackMs: number
}): Promise<void> {
  try {
    const r = await reconcileAtStart({
      db: o.journal.db,
      venue: perpsHistory(o.perps),
      now: o.clock.now(),
      maxPages: o.maxPages,
      firstLookbackMs: o.firstLookbackMs,
      earliestDropAt: o.journal.stats().earliestEssentialDropAt,
      scope: o.journal.scope(),
    })
    // Never silent: each venue row the journal could not take is named (and counted in /metrics).
    o.journal.noteRefused([...r.fills.refused, ...r.funding.refused])
    o.logger.info(
      { fills: r.fills, funding: r.funding, deposits: r.deposits },
      `journal reconciled with the venue: ${r.fills.inserted} new fill(s), ${r.funding.inserted} new funding row(s), ${r.deposits?.seen ?? 0} deposit(s) read` +
        (r.fills.pending.length + r.funding.pending.length > 0
          ? '; older history left for the next start'
          : ''),
    )
    // The report reads deposit and withdrawal amounts (base units on the wire) with these decimals.
    const assets = await o.perps.getAssets()
    o.journal.saveState(ASSETS_STATE, Object.fromEntries(assets.map((a) => [a.asset, a.decimals])))
  } catch (e) {
    // The journal is not on the money path: a failed read is retried at the next start.
    o.logger.warn({ err: describeError(e) }, 'journal reconcile at start failed; the next start tries again')
  }
}

/**
 * After connecting: whose rows the journal writes from now on (the owner address the venue names for
 * our credentials, and the exchange's domain), and the rows of an earlier journal claimed or kept
 * apart. Unreadable credentials: the proxy address (with a warning), so nothing waits for ever.
 */
export async function bindJournalAccount(o: {
  journal: Journal
  perps: Pick<PerpsClient, 'getCredentials'>
  proxyAddress: string
  domain: { name: string; version: string; chainId: number }
  logger: Logger
}): Promise<void> {
  let account: string
  try {
    account = (await o.perps.getCredentials()).address.toLowerCase()
  } catch (e) {
    account = o.proxyAddress.toLowerCase()
    o.logger.warn(
      { err: describeError(e), proxy: account },
      "cannot read the account's address from the venue; the journal keys this run by the proxy address",
    )
  }
  o.journal.bind({ account, venue: domainVenue(o.domain) })
  const scope = o.journal.scope()
  try {
    const c = await claimUnknownRows(o.journal.db, scope, o.proxyAddress)
    if (c.claimed > 0)
      o.logger.info(
        { claimed: c.claimed, account: scope.account },
        `journal: ${c.claimed} row(s) of an earlier version attributed to account ${scope.account} (the only account this journal names)`,
      )
    const apart = c.apart.fills + c.apart.funding + c.apart.runs
    if (apart > 0)
      o.logger.warn(
        { ...c.apart, accountKeys: c.accountKeys },
        `journal: ${c.apart.runs} run(s), ${c.apart.fills} fill(s) and ${c.apart.funding} funding row(s) of an earlier version cannot be attributed to an account (the journal names ${c.accountKeys.length} account key(s)); they are kept apart as account '${UNKNOWN_ACCOUNT}' and counted in no account's PnL (perpbot report --account ${UNKNOWN_ACCOUNT} shows them)`,
      )
  } catch (e) {
    o.logger.warn({ err: describeError(e) }, 'journal: cannot look for rows of an earlier version')
  }
}

/**
 * The instrument machine's state path as the report counts it: `active.*` is quoting (its risk mode
 * kept: `quoting`, `quoting.widened`, `quoting.reduceOnly`), `halted.*` halted, else its first part.
 */
export function modeOf(state: string | undefined): string {
  if (state === undefined) return 'unknown'
  const [top = state, risk] = state.split('.')
  if (top === 'active')
    return risk === undefined || risk === 'normal' ? 'quoting' : `quoting.${risk}`.slice(0, 32)
  return top.slice(0, 32)
}

const STOPPING = new Set(['stopped', 'stopping', 'halted'])
/** The equity curve's sampling: the dashboard's timeline step, so the report's drawdown is the chart's. */
const EQUITY_SAMPLE_MS = 2_000

/** Every minute of bot time: each instrument's ledger line and state. */
export function startPnlSnapshots(o: {
  journal: Journal
  clock: Clock
  instruments: readonly { id: number; symbol: string }[]
  /** An instrument a reload added: the symbols are saved again, so the report names it. */
  joined?: { subscribe(listener: (i: { id: number }) => void): () => void } | undefined
  pnl: () => PnlSnapshot
  states: () => readonly { id: number; state: string }[]
}): { stop(): void } {
  const saveSymbols = (): void =>
    o.journal.saveState(SYMBOLS_STATE, Object.fromEntries(o.instruments.map((i) => [String(i.id), i.symbol])))
  saveSymbols()
  const unjoin = o.joined?.subscribe(saveSymbols)
  let timer: TimerId | undefined
  let stopped = false
  const lastMode = new Map<number, string>()
  /** The rest of a boundary sample still being written a slice at a time: written at once when called. */
  let finishRest: (() => void) | undefined
  /**
   * A boundary sample stands for the minute it opens; the last one, taken at the stop, for the part run.
   * The ledger and the states are read at once; on the timer the rows are then written `SLICE`
   * instruments at a time with a turn between (1,000 rows held the thread ~5 ms a minute); the next
   * sample or the stop first writes what is left, so the rows and their order are as before.
   */
  const take = (final: boolean): void => {
    finishRest?.()
    const now = o.clock.now()
    const minute = now - (now % 60_000)
    const pnl = o.pnl()
    const states = new Map(o.states().map((s) => [s.id, s.state]))
    const list = [...o.instruments]
    let k = 0
    const writeTo = (end: number): void => {
      for (; k < end; k++) {
        const i = list[k]
        if (i !== undefined) row(i)
      }
    }
    const finish = (): void => {
      if (finishRest === finish) finishRest = undefined
      writeTo(list.length)
    }
    const slice = (): void => {
      // Written at once since (the next sample or the stop): nothing is left.
      if (finishRest !== finish) return
      writeTo(Math.min(list.length, k + SLICE))
      if (k < list.length) setImmediate(slice)
      else finishRest = undefined
    }
    finishRest = finish
    if (final || list.length <= SLICE) finish()
    else slice()
    function row(i: { id: number; symbol: string }): void {
      const line = pnl.instruments[i.id]
      const seen = modeOf(states.get(i.id))
      // The stop's own state is not what the minute was: keep the mode the minute began with.
      const mode = final && STOPPING.has(seen) ? (lastMode.get(i.id) ?? seen) : seen
      lastMode.set(i.id, mode)
      o.journal.snapshot({
        inventoryPnl: line?.inventoryPnl ?? '0',
        spanMs: final ? Math.min(60_000, now - minute) : 60_000,
        minute,
        iid: i.id,
        position: line?.position ?? '0',
        realizedPnl: line?.realizedPnl ?? '0',
        unrealizedPnl: line?.unrealizedPnl ?? '0',
        fees: line?.fees ?? '0',
        funding: line?.funding ?? '0',
        volume: line?.volume ?? '0',
        fills: line?.fills ?? 0,
        mode,
      })
    }
  }
  const schedule = (): void => {
    if (stopped) return
    const now = o.clock.now()
    timer = o.clock.setTimeout(
      () => {
        take(false)
        schedule()
      },
      60_000 - (now % 60_000),
    )
  }
  // The drawdown's curve: the account's net every 2 s of bot time, written when it moved.
  let equityTimer: TimerId | undefined
  let lastNet: string | undefined
  const sample = (): void => {
    const net = o.pnl().account.netPnl
    if (net === lastNet) return
    lastNet = net
    o.journal.equity({ at: o.clock.now(), net })
  }
  const scheduleEquity = (): void => {
    if (stopped) return
    equityTimer = o.clock.setTimeout(() => {
      sample()
      scheduleEquity()
    }, EQUITY_SAMPLE_MS)
  }
  schedule()
  scheduleEquity()
  return {
    stop() {
      stopped = true
      unjoin?.()
      if (timer !== undefined) o.clock.clearTimeout(timer)
      if (equityTimer !== undefined) o.clock.clearTimeout(equityTimer)
      take(true)
      sample()
    },
  }
}

/**
 * The dashboard's `/history` over the journal: a span back from the bot's now (or from a given
 * start) to the newest record, which a previous dry run on an accelerated mock may have left ahead of
 * this run's clock.
 */
export function journalHistory(journal: Journal, clock: Clock): HistorySource {
  // Concurrent asks for the same window share one read (issue 34: 40 at once delayed /livez 15 s).
  return coalescedHistory({
    async read(q) {
      const now = clock.now()
      const scope = journal.scope()
      const until = Math.max(now, (await newestRecordAt(journal.db, scope)) ?? now)
      const since = q.since ?? now - (q.spanMs ?? HISTORY_DEFAULT_SPAN_MS)
      return loadJournalHistory(journal.db, { since, until, scope })
    },
  })
}

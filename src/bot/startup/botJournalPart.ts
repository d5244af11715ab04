/**
 * The journal as one part of the bot: built from the bot's `journal` option (a no-op part when there is
 * none), it gives each later part its joint (alert sink, batch recorder, order states, the account's
 * store, records and PnL baseline), reconciles at start with its own page and lookback policy, and
 * starts and stops the minute snapshots and the health alerts. The adapters are in botJournal.ts.
 */

import type { Registry } from 'prom-client'
import type { AlertSink } from '../../alerts/alert.ts'
import type { Clock } from '../../clock.ts'
import type { Journal } from '../../journal/journal.ts'
import type { Logger } from '../../logging/logger.ts'
import type { HistorySource } from '../../ops/dashboard/history.ts'
import { registerJournalMetrics } from '../../ops/journalMetrics.ts'
import type { PerpsClient } from '../../perps/client/createPerpsClient.ts'
import type { PnlBaseline, PnlSnapshot } from '../account/pnlLedger.ts'
import type { AccountRecords } from '../account/supervision/accountSupervision.ts'
import type { StateStore } from '../account/supervision/stateStore.ts'
import { protectionStateName } from '../control/protections.ts'
import type { OrderStateRecorder } from '../orders/openOrderBook.ts'
import type { BatchRecorder } from '../orders/orderDesk.ts'
import {
  bindJournalAccount,
  journalAccountRecords,
  journalAlertSink,
  journalBatchRecorder,
  journalHealthAlerts,
  journalHistory,
  journalOrderStates,
  journalPnlBaseline,
  journalStateStore,
  reconcileJournalAtStart,
  startPnlSnapshots,
} from './botJournal.ts'
import { type BotMarkouts, createBotMarkouts, noMarkouts } from './botMarkouts.ts'

/** Reconcile at start: pages per kind (weight 10 each), and how far back an empty journal reaches. */
const JOURNAL_RECONCILE_PAGES = 50
const JOURNAL_FIRST_LOOKBACK_MS = 7 * 86_400_000

/** What the account supervision takes from the journal. */
export interface AccountJournal {
  store: StateStore | undefined
  records: AccountRecords | undefined
  pnlBaseline: PnlBaseline | undefined
}

export interface BotJournal {
  /** Sinks for the alert hub (the journal's, when there is one). */
  readonly alertSinks: readonly AlertSink[]
  /** The journal's database lost mid-run becomes an alert episode on `alerts` (trading goes on). */
  watchHealth(alerts: AlertSink): void
  /**
   * Once connected, before anything is written: the journal's rows are this account's on this venue
   * (the owner address read from the venue, the exchange's domain); an earlier version's rows claimed
   * or kept apart with a warning.
   */
  bindAccount(conn: {
    perps: PerpsClient
    proxyAddress: string
    domain: { name: string; version: string; chainId: number }
  }): Promise<void>
  /** Before quoting: the fills and funding of the time the bot was down (reads pass the limiter). */
  reconcileAtStart(perps: PerpsClient, venueClock: Clock): Promise<void>
  /** Settled batches counted by `metrics` and kept in the journal. */
  batchRecorder(metrics: BatchRecorder): BatchRecorder
  /** The venue's order state changes into the journal. */
  readonly orderStates: OrderStateRecorder | undefined
  /**
   * The account's restart state, records and PnL baseline (a self-provisioned account is new each
   * start: no state journal, no baseline).
   */
  account(proxyAddress: string, selfProvision: boolean): Promise<AccountJournal>
  registerMetrics(registry: Registry): void
  /**
   * Markouts of our fills (botMarkouts.ts): the mids at and after each fill into the journal, on the
   * venue's clock; its gauges on `registry`; stopped with this part.
   */
  markouts(o: { venueClock: Clock; registry: Registry }): BotMarkouts
  /** The dashboard's long history (`/history`): PnL per minute and fills from the journal. */
  readonly history: HistorySource | undefined
  /** A PnL snapshot per instrument per minute, with the instrument's state. */
  startSnapshots(o: {
    /** The traded instruments, read at each snapshot (a reload may add one). */
    instruments: readonly { id: number; symbol: string }[]
    /** An instrument a reload added: the journal's symbol names are saved again. */
    joined?: { subscribe(listener: (i: { id: number }) => void): () => void } | undefined
    pnl: () => PnlSnapshot
    states: () => readonly { id: number; state: string }[]
  }): void
  /** Takes the last snapshot and stops watching the journal's health. */
  stop(): void
}

export function createBotJournal(o: {
  journal: Journal | undefined
  clock: Clock
  logger: Logger
}): BotJournal {
  const { journal, clock, logger } = o
  if (journal === undefined) return noJournal
  const stops: { stop(): void }[] = []
  return {
    alertSinks: [journalAlertSink(journal)],
    watchHealth(alerts) {
      stops.push(journalHealthAlerts({ journal, alerts, clock }))
    },
    bindAccount: (conn) => bindJournalAccount({ journal, ...conn, logger }),
    reconcileAtStart: (perps, venueClock) =>
      reconcileJournalAtStart({
        journal,
        perps,
        clock: venueClock,
        logger,
        maxPages: JOURNAL_RECONCILE_PAGES,
        firstLookbackMs: JOURNAL_FIRST_LOOKBACK_MS,
      }),
    batchRecorder: (metrics) => journalBatchRecorder(journal, clock, metrics),
    orderStates: journalOrderStates(journal),
    async account(proxyAddress, selfProvision) {
      const store = await journalStateStore(journal, [
        `account-watch-${proxyAddress.toLowerCase()}`,
        protectionStateName(proxyAddress),
      ])
      const records = journalAccountRecords(journal, clock)
      const pnlBaseline = selfProvision ? undefined : await journalPnlBaseline(journal, clock, logger)
      return { store, records, pnlBaseline }
    },
    registerMetrics: (registry) => registerJournalMetrics(registry, journal),
    markouts(m) {
      const part = createBotMarkouts({ journal, logger, ...m })
      stops.push(part)
      return part
    },
    history: journalHistory(journal, clock),
    startSnapshots(s) {
      // Stopped first (the last snapshot), then the health watch.
      stops.unshift(startPnlSnapshots({ journal, clock, ...s }))
    },
    stop() {
      for (const s of stops.splice(0)) s.stop()
    },
  }
}

const noJournal: BotJournal = {
  alertSinks: [],
  watchHealth() {},
  bindAccount: async () => {},
  reconcileAtStart: async () => {},
  batchRecorder: (metrics) => metrics,
  orderStates: undefined,
  account: async () => ({ store: undefined, records: undefined, pnlBaseline: undefined }),
  registerMetrics() {},
  markouts: () => noMarkouts,
  history: undefined,
  startSnapshots() {},
  stop() {},
}

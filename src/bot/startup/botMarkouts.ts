/**
 * Markouts of our fills in the journal (issue 39.3): the pending-markout tracker (`journal/fillMids.ts`)
 * fed by the touches the streams route to the instrument actors (the book's best bid and offer) and by
 * the fills the account supervision journals, on the venue's clock as the bot keeps it (a fill's
 * timestamp is the venue's). Each mid goes to the journal once its moment has passed; what is still
 * waiting at the stop is settled up to the stop and the rest stays unknown. Built by the journal part
 * (stopped with it); without a journal it passes everything through.
 */
import { Gauge, type Registry } from 'prom-client'
import type { Clock } from '../../clock.ts'
import { FillMids, type FillMidsStats } from '../../journal/fillMids.ts'
import type { Journal } from '../../journal/journal.ts'
import type { Logger } from '../../logging/logger.ts'
import { METRIC_PREFIX } from '../../ops/metrics.ts'
import type { Fill } from '../../perps/schemas/account.ts'
import type { AccountRecords } from '../account/supervision/accountSupervision.ts'
import { BBO_REFRESH_MS } from '../inputs/streams/streamRoutes.ts'
import type { InstrumentEvent } from '../instrument/context.ts'

/** What the streams route into (the instrument actors' inbox). */
export interface TouchInbox {
  readonly instruments: readonly { id: number }[]
  route(ids: readonly number[], event: InstrumentEvent): void
  /** An unchanged BBO pushed again and not routed (streamRoutes.ts `touchRenewed`). */
  touchRenewed?: ((id: number) => void) | undefined
}

export interface BotMarkouts {
  /** The inbox the streams route into: each BBO also goes to the tracker. */
  inbox(actors: TouchInbox): TouchInbox
  /** The account's journal joints, whose records also hand each new fill to the tracker. */
  account<A extends { records: AccountRecords | undefined }>(a: A): A
  stats(): FillMidsStats
  /** Settles every moment before now; later ones stay unknown. */
  stop(): void
}

export function createBotMarkouts(o: {
  journal: Journal
  /** The venue's clock as the bot keeps it (a fill's `ts` is on it). */
  venueClock: Pick<Clock, 'now'>
  logger: Logger
  /** Where the tracker's gauges go (`/metrics`). */
  registry: Registry
}): BotMarkouts {
  const { journal, venueClock } = o
  const tracker = new FillMids({ write: (rec) => journal.fillMid(rec) })
  registerMarkoutMetrics(o.registry, () => tracker.stats())
  let warned = false
  const untouched = new Set<number>()
  let stopped = false
  const renewedAt = new Map<number, number>()
  return {
    inbox: (actors) => ({
      get instruments() {
        return actors.instruments
      },
      route(ids, event) {
        actors.route(ids, event)
        if (event.type !== 'BBO' || stopped) return
        const t = venueClock.now()
        for (const iid of ids) tracker.touch(iid, t, event.bbo.bid?.price, event.bbo.ask?.price)
      },
      // As often as the unchanged touch was routed before issue 36's cut: the ring keeps its look-back.
      touchRenewed(iid) {
        if (stopped) return
        const t = venueClock.now()
        if (t - (renewedAt.get(iid) ?? Number.NEGATIVE_INFINITY) < BBO_REFRESH_MS) return
        renewedAt.set(iid, t)
        tracker.renew(iid, t)
      },
    }),
    account(a) {
      const records = a.records
      if (records === undefined) return a
      const tracked: AccountRecords = {
        ...records,
        fill(f: Fill) {
          records.fill(f)
          if (stopped) return
          tracker.fill({ iid: f.iid, tradeId: String(f.tid), orderId: f.oid, ts: f.ts }, venueClock.now())
          if (!tracker.touched(f.iid) && !untouched.has(f.iid)) {
            untouched.add(f.iid)
            o.logger.warn(
              { iid: f.iid },
              'markouts: no best bid/offer received for this instrument (streams off, streams.bbo false, or no room for its subscription): its fills report unknown markouts',
            )
          }
          if (!warned && tracker.stats().dropped > 0) {
            warned = true
            o.logger.warn(
              { pending: tracker.stats().pending },
              'markouts: too many fills wait for their 60 s mid; later fills get their mid at the fill only (perpbot_markout_fills_dropped counts them)',
            )
          }
        },
      }
      return { ...a, records: tracked }
    },
    stats: () => tracker.stats(),
    stop() {
      if (stopped) return
      tracker.advance(venueClock.now())
      stopped = true
    },
  }
}

/** Without a journal: nothing tracked, everything passed through. */
export const noMarkouts: BotMarkouts = {
  inbox: (actors) => actors,
  account: (a) => a,
  stats: () => ({ pending: 0, fills: 0, written: 0, unknown: 0, dropped: 0 }),
  stop() {},
}

function registerMarkoutMetrics(registry: Registry, stats: () => FillMidsStats): void {
  const gauge = (name: string, help: string, pick: (s: FillMidsStats) => number) =>
    new Gauge({
      name: `${METRIC_PREFIX}markout_${name}`,
      help,
      registers: [registry],
      collect() {
        this.set(pick(stats()))
      },
    })
  gauge('fills_pending', 'Fills waiting for a markout mid (1 s, 10 s, 60 s after them).', (s) => s.pending)
  gauge('mids_written', 'Mids at or after our fills written to the journal since start.', (s) => s.written)
  gauge('mids_unknown', 'Moments of our fills that passed with no fresh touch (unknown).', (s) => s.unknown)
  gauge(
    'fills_dropped',
    'Fills not kept for their later mids since start (too many pending).',
    (s) => s.dropped,
  )
}

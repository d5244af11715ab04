/**
 * What a journal caller hands in (`Pending`: a record checked against its schema when written, off
 * the caller's path) and the one conversion of it into a table row, scoped to its account and venue.
 */
import type { JournalScope } from './journalScope.ts'
import { UNKNOWN_ACCOUNT } from './journalScope.ts'
import {
  AlertRecord,
  assertNoSecretKeys,
  CommandRecord,
  EquityRecord,
  FillMidRecord,
  FillRecord,
  FundingRecord,
  OrderEvent,
  PnlSnapshotRecord,
  TransferRecord,
} from './records.ts'
import type { JournalRow } from './rows.ts'
import type { RunsTable } from './schema/tables.ts'

/** What a caller hands in; checked against the schemas when written, not on the caller's path. */
export type Pending =
  | { t: 'runs'; row: Omit<RunsTable, 'account' | 'venue'> }
  | { t: 'commands'; seq: number; rec: unknown; at: number }
  | { t: 'order_events'; seq: number; rec: unknown; at: number }
  | { t: 'fills'; rec: unknown; source: FillSource; at: number }
  | { t: 'funding'; rec: unknown; at: number }
  | { t: 'transfers'; rec: unknown; at: number }
  | { t: 'alerts'; rec: unknown; at: number }
  | { t: 'pnl_snapshots'; rec: unknown; at: number }
  | { t: 'equity'; rec: unknown; at: number }
  | { t: 'fill_mids'; rec: unknown; at: number }
  | { t: 'state'; name: string; value: unknown; at: number }
  /** A row an earlier run could not write, from its spool (spool.ts): written as it is. */
  | { t: 'spooled'; row: JournalRow; at: number }

/** live: seen while running (stream or poll); reconcile: read from the venue's history at start. */
export type FillSource = 'live' | 'stream' | 'rest' | 'reconcile'

export const timeOf = (p: Pending): number => (p.t === 'runs' ? (p.row.stopped_at ?? p.row.started_at) : p.at)

const UNBOUND: JournalScope = { account: UNKNOWN_ACCOUNT, venue: '' }

/** Validates one pending record into its row (throws a ZodError for a bad one). */
export function toRow(p: Pending, runId: string, pid: number, scope: JournalScope = UNBOUND): JournalRow {
  const { account, venue } = scope
  switch (p.t) {
    case 'runs':
      return { table: 'runs', row: { ...p.row, account, venue } }
    case 'spooled':
      return p.row
    case 'commands': {
      const c = CommandRecord.parse(p.rec)
      return {
        table: 'commands',
        row: {
          account,
          venue,
          run_id: runId,
          seq: p.seq,
          ts: c.ts,
          kind: c.kind,
          outcome: c.outcome,
          error: c.error ?? null,
          latency_ms: c.latencyMs,
          weight: c.weight,
          pid: c.pid ?? pid,
          item_count: c.itemCount ?? c.items.length,
          items: JSON.stringify(c.items),
        },
      }
    }
    case 'order_events': {
      const e = OrderEvent.parse(p.rec)
      return {
        table: 'order_events',
        row: {
          account,
          venue,
          run_id: runId,
          seq: p.seq,
          ts: e.ts,
          iid: e.iid,
          oid: e.oid ?? null,
          coid: e.coid ?? null,
          state: e.state,
          price: e.price ?? null,
          qty: e.qty ?? null,
          filled: e.filled ?? null,
        },
      }
    }
    case 'fills':
      return fillRow(FillRecord.parse(p.rec), p.source, scope)
    case 'funding': {
      const f = FundingRecord.parse(p.rec)
      return {
        table: 'funding',
        row: {
          account,
          venue,
          key: f.key,
          iid: f.iid,
          size: f.size,
          rate: f.rate,
          asset: f.asset,
          amount: f.amount,
          ts: f.ts,
        },
      }
    }
    case 'transfers': {
      const t = TransferRecord.parse(p.rec)
      return {
        table: 'transfers',
        row: {
          account,
          venue,
          kind: t.kind,
          id: t.id,
          asset: t.asset,
          amount: t.amount,
          fee: t.fee,
          status: t.status,
          ts: t.ts,
          updated_at: t.updatedAt,
        },
      }
    }
    case 'alerts': {
      const a = AlertRecord.parse(p.rec)
      return {
        table: 'alerts',
        row: {
          account,
          venue,
          key: a.key,
          at: a.at,
          resolved: a.resolved ? 1 : 0,
          severity: a.severity,
          title: a.title,
          message: a.message,
        },
      }
    }
    case 'pnl_snapshots': {
      const s = PnlSnapshotRecord.parse(p.rec)
      return {
        table: 'pnl_snapshots',
        row: {
          account,
          venue,
          minute: s.minute,
          iid: s.iid,
          position: s.position,
          realized_pnl: s.realizedPnl,
          unrealized_pnl: s.unrealizedPnl,
          fees: s.fees,
          funding: s.funding,
          volume: s.volume,
          fills: s.fills,
          mode: s.mode,
          inventory_pnl: s.inventoryPnl,
          span_ms: s.spanMs,
        },
      }
    }
    case 'equity': {
      const e = EquityRecord.parse(p.rec)
      return { table: 'equity', row: { account, venue, at: e.at, net: e.net } }
    }
    case 'fill_mids': {
      const m = FillMidRecord.parse(p.rec)
      return {
        table: 'fill_mids',
        row: {
          account,
          venue,
          trade_id: m.tradeId,
          order_id: m.orderId,
          fill_ts: m.fillTs,
          horizon_ms: m.horizonMs,
          mid: m.mid,
          at: m.at,
        },
      }
    }
    case 'state':
      assertNoSecretKeys(p.value)
      return { table: 'state', row: { name: p.name, value: JSON.stringify(p.value ?? null), at: p.at } }
  }
}

export function fillRow(
  f: FillRecord,
  source: FillSource,
  scope: JournalScope = UNBOUND,
): JournalRow & { table: 'fills' } {
  return {
    table: 'fills',
    row: {
      account: scope.account,
      venue: scope.venue,
      trade_id: f.tradeId,
      order_id: f.orderId,
      iid: f.iid,
      side: f.side,
      price: f.price,
      qty: f.qty,
      taker: f.taker ? 1 : 0,
      fee: f.fee,
      fee_asset: f.feeAsset,
      realized_pnl: f.realizedPnl,
      liquidation: f.liquidation ? 1 : 0,
      ts: f.ts,
      coid: f.coid ?? null,
      source,
    },
  }
}

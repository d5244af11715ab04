/**
 * The public stream pushes a recording keeps, as dataset rows (pure): tickers (index, mark, funding
 * estimate) and best bid/offer stamped with their receive time `t` and the envelope's venue `ts`;
 * trades stamped with their own venue time and taker side; book snapshots with their receive time,
 * cut to `bookDepth` levels a side.
 */
import type { StreamPush } from '../../perps/stream/schemas.ts'
import type { RowOf } from '../dataset/format.ts'

export type RecordedRow =
  | { kind: 'tickers'; iid: number; row: RowOf['tickers'] }
  | { kind: 'bbo'; iid: number; row: RowOf['bbo'] }
  | { kind: 'trades'; iid: number; row: RowOf['trades'] }
  | { kind: 'book'; iid: number; row: RowOf['book'] }

export function rowsOfPush(push: StreamPush, receivedAt: number, bookDepth = 10): RecordedRow[] {
  switch (push.kind) {
    case 'tickers': {
      const d = push.data
      // A dataset ticker row carries a mark and a funding estimate: a push without them (a new
      // instrument) is not recorded.
      if (d.mark === undefined || d.fr === undefined) return []
      return [
        { kind: 'tickers', iid: d.iid, row: { t: receivedAt, ts: push.ts, i: d.idx, m: d.mark, r: d.fr } },
      ]
    }
    case 'bbo': {
      const d = push.data
      return [{ kind: 'bbo', iid: d.iid, row: { t: receivedAt, bp: d.bp, bq: d.bq, ap: d.ap, aq: d.aq } }]
    }
    case 'book': {
      // The book's instrument is in the channel name only (ws-protocol §4).
      if (push.iid === undefined) return []
      const d = push.data
      return [
        {
          kind: 'book',
          iid: push.iid,
          row: { t: receivedAt, b: d.b.slice(0, bookDepth), a: d.a.slice(0, bookDepth) },
        },
      ]
    }
    case 'trades':
      return push.data.map((x) => ({
        kind: 'trades',
        iid: x.iid,
        row: { t: x.ts, p: x.p, q: x.qty, s: x.side },
      }))
    default:
      return []
  }
}

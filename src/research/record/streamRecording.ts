/**
 * A recording session: a stream client's public pushes (tickers, best bid/offer, trades, book
 * snapshots) into a dataset through the hourly writer, stamped with the receive time on the given
 * clock. Book snapshots are kept at most one per instrument per `bookEveryMs` window (the venue pushes a
 * book every 100 ms: ten times what a replay needs, and most of the disk), cut to `bookDepth`
 * levels a side. The caller owns the stream client (or hands pushes in with their receive times,
 * `record`) and calls `flush` on its cadence.
 */
import type { Clock } from '../../clock.ts'
import type { StreamPush } from '../../perps/stream/schemas.ts'
import type { StreamClient } from '../../perps/stream/streamClient.ts'
import type { DatasetInstrument } from '../dataset/format.ts'
import type { DatasetStore } from '../dataset/store.ts'
import { createHourlyWriter } from './hourlyWriter.ts'
import { rowsOfPush } from './pushRows.ts'

export interface RecordingOptions {
  /** A stream client to listen to, stamping each push with `clock`; without one, pushes come through `record`. */
  listen?: { client: Pick<StreamClient, 'onPush'>; clock: Pick<Clock, 'now'> } | undefined
  store: DatasetStore
  instruments: readonly DatasetInstrument[]
  maxBytes: number
  /** Levels a side kept of each book snapshot. Default 10. */
  bookDepth?: number | undefined
  /** At most one book snapshot per instrument this often (ms). Default 1,000. */
  bookEveryMs?: number | undefined
}

export interface RecordingResult {
  rows: number
  bytes: number
  dropped: number
}

export interface Recording {
  /** Pushes and rows recorded so far. */
  readonly pushes: number
  readonly rows: number
  /** One push received at `receivedAt` (ms). */
  record(push: StreamPush, receivedAt: number): void
  /** Writes what arrived since the last flush (compression off the event loop). */
  flush(): Promise<void>
  /** Stops listening and writes what is left. */
  stop(): Promise<RecordingResult>
}

export function startRecording(o: RecordingOptions): Recording {
  const writer = createHourlyWriter(o.store, o.maxBytes)
  const byId = new Map(o.instruments.map((i) => [i.id, i]))
  const bookDepth = o.bookDepth ?? 10
  const bookEveryMs = o.bookEveryMs ?? 1_000
  const lastBook = new Map<number, number>()
  for (const i of o.instruments)
    if (o.store.manifest.instruments[i.symbol] === undefined) o.store.setInstrument(i)
  let pushes = 0
  let rows = 0
  const record = (push: StreamPush, receivedAt: number): void => {
    const at = Math.floor(receivedAt)
    pushes++
    for (const r of rowsOfPush(push, at, bookDepth)) {
      const i = byId.get(r.iid)
      if (i === undefined) continue
      if (r.kind === 'book') {
        // One per `bookEveryMs` window of receive time (a gap rule would drop every push that came early).
        const slot = Math.floor(at / bookEveryMs)
        if (lastBook.get(r.iid) === slot) continue
        lastBook.set(r.iid, slot)
        writer.add('book', i.symbol, r.row)
      } else if (r.kind === 'tickers') writer.add('tickers', i.symbol, r.row)
      else if (r.kind === 'bbo') writer.add('bbo', i.symbol, r.row)
      else writer.add('trades', i.symbol, r.row)
      rows++
    }
  }
  const listen = o.listen
  const off = listen?.client.onPush((push) => record(push, listen.clock.now()))
  return {
    record,
    get pushes() {
      return pushes
    },
    get rows() {
      return rows
    },
    flush: () => writer.flush(),
    async stop() {
      off?.()
      await writer.flush()
      return { rows, bytes: writer.bytes(), dropped: writer.dropped }
    },
  }
}

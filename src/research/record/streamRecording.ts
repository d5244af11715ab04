/**
 * A recording session: a stream client's public pushes (tickers, best bid/offer, trades where the
 * venue serves them) into a dataset through the hourly writer, stamped with the receive time on the
 * given clock; flushed every `flushMs` and at `stop`. The caller owns the stream client.
 */
import type { Clock } from '../../clock.ts'
import type { StreamClient } from '../../perps/stream/streamClient.ts'
import type { DatasetInstrument } from '../dataset/format.ts'
import type { DatasetStore } from '../dataset/store.ts'
import { createHourlyWriter } from './hourlyWriter.ts'
import { rowsOfPush } from './pushRows.ts'

export interface RecordingOptions {
  client: Pick<StreamClient, 'onPush'>
  store: DatasetStore
  clock: Pick<Clock, 'now'>
  instruments: readonly DatasetInstrument[]
  maxBytes: number
}

export interface Recording {
  /** Pushes and rows recorded so far. */
  readonly pushes: number
  readonly rows: number
  flush(): void
  /** Stops listening and writes what is left. */
  stop(): { rows: number; bytes: number; dropped: number }
}

export function startRecording(o: RecordingOptions): Recording {
  const writer = createHourlyWriter(o.store, o.maxBytes)
  const byId = new Map(o.instruments.map((i) => [i.id, i]))
  for (const i of o.instruments)
    if (o.store.manifest.instruments[i.symbol] === undefined) o.store.setInstrument(i)
  let pushes = 0
  let rows = 0
  const off = o.client.onPush((push) => {
    const at = Math.floor(o.clock.now())
    pushes++
    for (const r of rowsOfPush(push, at)) {
      const i = byId.get(r.iid)
      if (i === undefined) continue
      rows++
      if (r.kind === 'tickers') writer.add('tickers', i.symbol, r.row)
      else if (r.kind === 'bbo') writer.add('bbo', i.symbol, r.row)
      else writer.add('trades', i.symbol, r.row)
    }
  })
  return {
    get pushes() {
      return pushes
    },
    get rows() {
      return rows
    },
    flush: () => writer.flush(),
    stop() {
      off()
      writer.flush()
      return { rows, bytes: writer.bytes(), dropped: writer.dropped }
    },
  }
}

/**
 * A recorder on its own public socket: a `StreamClient` subscribed to `tickers::all` and each
 * instrument's `bbo::` (and `trades::` where the venue serves them), written through
 * `startRecording`, flushed every `flushMs`. Used by `perpbot record` and `perpbot run --record`
 * (a separate socket: the bot's own stream inputs are not touched).
 */
import { type Clock, systemClock } from '../../clock.ts'
import { StreamClient } from '../../perps/stream/streamClient.ts'
import { seededRandom } from '../../random.ts'
import type { DatasetInstrument } from '../dataset/format.ts'
import { DatasetStore } from '../dataset/store.ts'
import { startRecording } from './streamRecording.ts'

export interface StreamRecorderOptions {
  url: string
  dir: string
  /** Recorded in the manifest (a folder holds one source's data). */
  source: string
  instruments: readonly DatasetInstrument[]
  /** Stamps receive times (the mock's clock in a dry run). */
  clock: Pick<Clock, 'now'>
  maxBytes: number
  flushMs: number
  /** Subscribe `trades::{iid}` too (the venue; the mock keeps no public tape). */
  trades: boolean
  onFlush?: ((pushes: number, rows: number) => void) | undefined
}

export interface StreamRecorder {
  readonly dir: string
  stop(): Promise<{ rows: number; bytes: number; dropped: number }>
}

export function startStreamRecorder(o: StreamRecorderOptions): StreamRecorder {
  const store = DatasetStore.openOrCreate(o.dir, o.source, 1_000)
  const client = new StreamClient({ url: o.url, clock: systemClock, random: seededRandom(0x7ec0) })
  const recording = startRecording({
    client,
    store,
    clock: o.clock,
    instruments: o.instruments,
    maxBytes: o.maxBytes,
  })
  client.start()
  client.subscribe([
    'tickers::all',
    ...o.instruments.flatMap((i) => [`bbo::${i.id}`, ...(o.trades ? [`trades::${i.id}`] : [])]),
  ])
  const flushes = setInterval(() => {
    recording.flush()
    o.onFlush?.(recording.pushes, recording.rows)
  }, o.flushMs)
  flushes.unref()
  return {
    dir: store.dir,
    async stop() {
      clearInterval(flushes)
      const r = recording.stop()
      await client.close()
      return r
    },
  }
}

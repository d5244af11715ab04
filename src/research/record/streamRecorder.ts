/**
 * A recorder on sockets of its own: a `StreamPool` subscribed to `tickers::all` and each instrument's
 * `bbo::`, `trades::` and `book::` (spread over as many public sockets as the venue's 100
 * subscriptions per connection need), written through `startRecording`, flushed every `flushMs`.
 * Used by `perpbot record` and `perpbot run --record` (separate sockets: the bot's own stream inputs
 * are not touched).
 */
import { type Clock, systemClock } from '../../clock.ts'
import { describeError } from '../../errors.ts'
import { StreamPool } from '../../perps/stream/streamPool.ts'
import { seededRandom } from '../../random.ts'
import type { DatasetInstrument } from '../dataset/format.ts'
import { DatasetStore } from '../dataset/store.ts'
import { type RecordingResult, startRecording } from './streamRecording.ts'

/** The venue's subscriptions per connection (protocol notes, WebSocket limits). */
export const PER_CONNECTION = 100
/** Channels per instrument: bbo, trades, book. */
const PER_INSTRUMENT = 3

export interface StreamRecorderOptions {
  url: string
  dir: string
  /** Recorded in the manifest (a folder holds one source's data). */
  source: string
  instruments: readonly DatasetInstrument[]
  /** Stamps receive times (the mock's clock in a dry run). */
  clock: Pick<Clock, 'now'>
  /** Runs the sockets' heartbeat and reconnects (default wall time; tests pass a stepped clock). */
  streamClock?: Clock | undefined
  maxBytes: number
  flushMs: number
  /** Levels a side of each book snapshot (default 10); at most one per instrument per `bookEveryMs` (default 1,000). */
  bookDepth?: number | undefined
  bookEveryMs?: number | undefined
  onFlush?: ((pushes: number, rows: number) => void) | undefined
  /** A flush that failed (disk full, folder removed): the recording goes on, the rows stay buffered. */
  onError?: ((message: string) => void) | undefined
}

export interface StreamRecorder {
  readonly dir: string
  stop(): Promise<RecordingResult>
}

/** The recorder in this process, which can also tell when its subscriptions are in place. */
export interface LocalStreamRecorder extends StreamRecorder {
  /** True once the venue acknowledged every channel the recorder asked for (pushes before are missed). */
  subscribed(): boolean
}

/** Public sockets the recorder needs for `n` instruments (plus `tickers::all`). */
export function recorderConnections(n: number): number {
  return Math.ceil((1 + PER_INSTRUMENT * n) / PER_CONNECTION)
}

export function startStreamRecorder(o: StreamRecorderOptions): LocalStreamRecorder {
  const store = DatasetStore.openOrCreate(o.dir, o.source, 1_000)
  const pool = new StreamPool({
    url: o.url,
    clock: o.streamClock ?? systemClock,
    random: seededRandom(0x7ec0),
    maxConnections: recorderConnections(o.instruments.length),
    maxMessagesPerMinute: 100,
  })
  const recording = startRecording({
    listen: { client: { onPush: (listener) => pool.on('push', listener) }, clock: o.clock },
    store,
    instruments: o.instruments,
    maxBytes: o.maxBytes,
    bookDepth: o.bookDepth,
    bookEveryMs: o.bookEveryMs,
  })
  pool.start()
  const channels = [
    'tickers::all',
    ...o.instruments.flatMap((i) => [`bbo::${i.id}`, `trades::${i.id}`, `book::${i.id}`]),
  ]
  pool.subscribe(channels)
  const flushes = setInterval(() => {
    recording.flush().then(
      () => o.onFlush?.(recording.pushes, recording.rows),
      (e: unknown) => o.onError?.(`recording flush failed: ${describeError(e)}`),
    )
  }, o.flushMs)
  flushes.unref()
  return {
    dir: store.dir,
    subscribed() {
      const acked = pool
        .health()
        .connections.flatMap((c) => (c.state === 'open' ? c.channels.filter((ch) => ch.subscribed) : []))
      return acked.length >= channels.length
    },
    async stop() {
      clearInterval(flushes)
      const r = await recording.stop()
      await pool.close()
      return r
    },
  }
}

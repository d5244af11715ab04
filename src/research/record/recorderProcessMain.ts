/**
 * Inside the recorder process, driven by the parent's messages: either the in-process recorder on
 * sockets of its own (`start`), or a recording of the frames the parent's stream tap hands over with
 * their receive times (`start-frames`, then `frames` batches), parsed here against the push schemas so
 * the bot's thread never parses them twice.
 */
import { performance } from 'node:perf_hooks'
import { z } from 'zod'
import { systemClock } from '../../clock.ts'
import { describeError } from '../../errors.ts'
import { classifyFrame, parsePushData, type StreamPush } from '../../perps/stream/schemas.ts'
import { StreamPool } from '../../perps/stream/streamPool.ts'
import { seededRandom } from '../../random.ts'
import { datasetInstrumentSchema } from '../dataset/format.ts'
import { DatasetStore } from '../dataset/store.ts'
import type { RecorderMessage } from './recorderProcess.ts'
import { PER_CONNECTION, type StreamRecorder, startStreamRecorder } from './streamRecorder.ts'
import { type RecordingResult, startRecording } from './streamRecording.ts'

const ClockImage = z.object({ now: z.number(), wallAt: z.number(), rate: z.number().positive() })
const Common = {
  dir: z.string(),
  source: z.string(),
  instruments: z.array(datasetInstrumentSchema),
  maxBytes: z.number().positive(),
  flushMs: z.number().positive(),
  bookDepth: z.number().int().positive().optional(),
  bookEveryMs: z.number().nonnegative().optional(),
}
const Start = z.object({
  type: z.literal('start'),
  options: z.object({
    ...Common,
    url: z.string(),
    clock: ClockImage,
  }),
})
const StartFrames = z.object({ type: z.literal('start-frames'), options: z.object(Common) })
const Frames = z.object({ type: z.literal('frames'), texts: z.array(z.string()), times: z.array(z.number()) })
const Subscribe = z.object({
  type: z.literal('subscribe'),
  url: z.string(),
  clock: ClockImage,
  channels: z.array(z.string()),
})

/** The caller's clock rebuilt from its image: `now + (wall − wallAt) × rate`. */
function clockOf(image: z.infer<typeof ClockImage>): { now(): number } {
  const { now, wallAt, rate } = image
  return { now: () => now + (performance.timeOrigin + performance.now() - wallAt) * rate }
}

/** A frame's push, or undefined for anything else (a response, a frame that fails its schema). */
export function pushOfFrame(text: string): StreamPush | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  const frame = classifyFrame(value)
  if (frame.type !== 'push') return undefined
  const r = parsePushData(frame.frame)
  return r.ok ? r.push : undefined
}

/** A recording of handed-in frames, flushed every `flushMs`. */
function startFramesRecorder(
  o: z.infer<typeof StartFrames>['options'],
  post: (m: RecorderMessage) => void,
): StreamRecorder & {
  frames(texts: readonly string[], times: readonly number[]): void
  subscribe(s: z.infer<typeof Subscribe>): void
} {
  const store = DatasetStore.openOrCreate(o.dir, o.source, 1_000)
  const recording = startRecording({ ...o, store })
  let pool: StreamPool | undefined
  const flushes = setInterval(() => {
    recording.flush().then(
      () => post({ type: 'flushed', pushes: recording.pushes, rows: recording.rows }),
      (e: unknown) => post({ type: 'error', message: `recording flush failed: ${describeError(e)}` }),
    )
  }, o.flushMs)
  return {
    dir: store.dir,
    frames(texts, times) {
      texts.forEach((text, i) => {
        const push = pushOfFrame(text)
        if (push !== undefined) recording.record(push, times[i] ?? Number.NaN)
      })
    },
    subscribe(s) {
      // The channels the bot does not read (trades, books) on sockets of this process's own.
      if (pool !== undefined || s.channels.length === 0) return
      const clock = clockOf(s.clock)
      pool = new StreamPool({
        url: s.url,
        clock: systemClock,
        random: seededRandom(0x7ec1),
        maxConnections: Math.ceil(s.channels.length / PER_CONNECTION),
        maxMessagesPerMinute: 100,
      })
      pool.on('push', (push) => recording.record(push, clock.now()))
      pool.on('error', (e) => post({ type: 'error', message: `recorder stream: ${describeError(e)}` }))
      pool.subscribe(s.channels)
      pool.start()
    },
    async stop(): Promise<RecordingResult> {
      clearInterval(flushes)
      const r = await recording.stop()
      await pool?.close()
      return r
    },
  }
}

export function runRecorderProcess(): void {
  const send = process.send?.bind(process)
  if (send === undefined) throw new Error('runRecorderProcess runs in a child with an IPC channel')
  const post = (m: RecorderMessage): void => {
    if (process.connected) send(m)
  }
  let recorder: StreamRecorder | undefined
  let framesRecorder: ReturnType<typeof startFramesRecorder> | undefined
  let stopping: Promise<void> | undefined
  const stop = (): Promise<void> => {
    stopping ??= (recorder?.stop() ?? Promise.resolve(undefined)).then(
      (result) => {
        if (result !== undefined) post({ type: 'stopped', result })
      },
      (e: unknown) => post({ type: 'error', message: `recording stop failed: ${describeError(e)}` }),
    )
    return stopping
  }
  const starting = (make: () => StreamRecorder): void => {
    try {
      recorder = make()
      post({ type: 'started', dir: recorder.dir })
    } catch (e) {
      post({ type: 'error', message: describeError(e) })
      process.exitCode = 2
      process.disconnect()
    }
  }
  process.on('message', (m: unknown) => {
    const frames = framesRecorder === undefined ? undefined : Frames.safeParse(m)
    if (frames?.success) {
      framesRecorder?.frames(frames.data.texts, frames.data.times)
      return
    }
    const subscribe = framesRecorder === undefined ? undefined : Subscribe.safeParse(m)
    if (subscribe?.success) {
      framesRecorder?.subscribe(subscribe.data)
      return
    }
    const start = recorder === undefined ? Start.safeParse(m) : undefined
    if (start?.success) {
      const o = start.data.options
      starting(() =>
        startStreamRecorder({
          ...o,
          clock: clockOf(o.clock),
          onFlush: (pushes, rows) => post({ type: 'flushed', pushes, rows }),
          onError: (message) => post({ type: 'error', message }),
        }),
      )
      return
    }
    const startFrames = recorder === undefined ? StartFrames.safeParse(m) : undefined
    if (startFrames?.success) {
      starting(() => {
        framesRecorder = startFramesRecorder(startFrames.data.options, post)
        return framesRecorder
      })
      return
    }
    if (typeof m === 'object' && m !== null && 'type' in m && m.type === 'stop') void stop()
  })
  // The parent stopped or died: write what is held, then end.
  process.on('disconnect', () => {
    void stop().then(() => process.exit(process.exitCode ?? 0))
  })
}

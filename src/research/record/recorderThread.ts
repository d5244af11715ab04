/**
 * The stream recorder on a worker thread of its own (`run --record`, the bench): its sockets, the
 * parsing of every push and the writing all run off the bot's event loop, so a recording adds
 * nothing to the bot's path from a push to an order but CPU time on another thread.
 *
 * Receive times are stamped on the thread with an affine image of the caller's clock (its reading,
 * the wall time of that reading, and its rate: 1 for wall time, the speed of an accelerated mock).
 * A stepped clock (rate 0) cannot be followed from another thread: record in-process then
 * (`startStreamRecorder`).
 */
import { performance } from 'node:perf_hooks'
import { Worker } from 'node:worker_threads'
import { z } from 'zod'
import type { Clock } from '../../clock.ts'
import { DatasetError } from '../dataset/format.ts'
import type { StreamRecorder, StreamRecorderOptions } from './streamRecorder.ts'

/** The caller's clock as the thread rebuilds it: `now + (wall − wallAt) × rate`. */
export interface ClockImage {
  now: number
  /** `performance.timeOrigin + performance.now()` when `now` was read. */
  wallAt: number
  rate: number
}

/** The image of a clock: a wall clock, or one that reports its rate (the mock's `VirtualClock`). */
export function clockImage(clock: Pick<Clock, 'now'> & { info?: () => { rate: number } }): ClockImage {
  return {
    now: clock.now(),
    wallAt: performance.timeOrigin + performance.now(),
    rate: clock.info?.().rate ?? 1,
  }
}

export type RecorderThreadOptions = Omit<StreamRecorderOptions, 'clock' | 'streamClock'> & {
  clock: ClockImage
}

/** What the thread posts. */
export const RecorderMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('started'), dir: z.string() }),
  z.object({ type: z.literal('flushed'), pushes: z.number(), rows: z.number() }),
  z.object({ type: z.literal('error'), message: z.string() }),
  z.object({
    type: z.literal('stopped'),
    result: z.object({ rows: z.number(), bytes: z.number(), dropped: z.number() }),
  }),
])
export type RecorderMessage = z.infer<typeof RecorderMessage>

/**
 * Starts the recorder thread; resolves once it has opened the dataset and subscribed.
 * @throws {@link DatasetError} when the thread cannot start the recording (a folder of another source).
 */
export async function startRecorderThread(o: RecorderThreadOptions): Promise<StreamRecorder> {
  if (o.clock.rate === 0)
    throw new DatasetError('a stepped clock cannot be followed from the recorder thread: record in-process')
  const { onFlush, onError, ...data } = o
  const worker = new Worker(new URL('./recorderThread.worker.mjs', import.meta.url), { workerData: data })
  let stopped: ((r: Extract<RecorderMessage, { type: 'stopped' }>['result']) => void) | undefined
  let failed: ((e: Error) => void) | undefined
  const dir = await new Promise<string>((resolve, reject) => {
    failed = reject
    worker.on('message', (raw: unknown) => {
      const m = RecorderMessage.safeParse(raw)
      if (!m.success) return
      const msg = m.data
      if (msg.type === 'started') resolve(msg.dir)
      else if (msg.type === 'flushed') onFlush?.(msg.pushes, msg.rows)
      else if (msg.type === 'error') {
        onError?.(msg.message)
        // Before `started`, an error is the start's failure.
        failed?.(new DatasetError(msg.message))
      } else stopped?.(msg.result)
    })
    worker.on('error', (e) => failed?.(e))
    worker.on('exit', (code) => failed?.(new DatasetError(`the recorder thread exited (${code})`)))
  }).finally(() => {
    failed = undefined
  })
  return {
    dir,
    async stop() {
      const result = new Promise<Extract<RecorderMessage, { type: 'stopped' }>['result']>(
        (resolve, reject) => {
          stopped = resolve
          failed = reject
        },
      )
      worker.postMessage({ type: 'stop' })
      const r = await result
      await worker.terminate()
      return r
    },
  }
}

/**
 * The stream recorder in a child process of its own at a lower CPU priority (`run --record`): the
 * parsing of every push and the writing run off the bot's event loop, and on a busy machine the
 * scheduler serves the bot first. It records either the frames the bot's stream tap hands it
 * (`recordingTap.ts`, the default) or from sockets of its own (the bot's streams off). (On a worker
 * thread the recorder woke with every push the bot took and competed with it for the two cores; see
 * docs/benchmarks.md.) The child stops, writing what it holds, when the parent goes away; a child
 * that dies is reported once through `onError`.
 *
 * Receive times are stamped in the child with an affine image of the caller's clock (its reading,
 * the wall time of that reading, and its rate: 1 for wall time, the speed of an accelerated mock).
 * A stepped clock (rate 0) cannot be followed from another process: record in-process then
 * (`startStreamRecorder`).
 */
import { type ChildProcess, execFile, fork } from 'node:child_process'
import { setPriority } from 'node:os'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { z } from 'zod'
import type { Clock } from '../../clock.ts'
import { DatasetError } from '../dataset/format.ts'
import type { StreamRecorder, StreamRecorderOptions } from './streamRecorder.ts'
import type { RecordingResult } from './streamRecording.ts'

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

export type RecorderProcessOptions = Omit<StreamRecorderOptions, 'clock' | 'streamClock'> & {
  clock: ClockImage
}

/** The child's niceness (the lowest): set at spawn, so every thread it starts inherits it. */
export const RECORDER_NICE = 19

/**
 * Puts every thread of `pid` in Linux's batch scheduling class (`chrt --batch --all-tasks`, util-linux;
 * lowering one's own priority needs no privilege): at nice 19 a batch thread weighs 15 against a
 * normal thread's 1,024 and is never the one a wake-up preempts for, so the bot's thread runs at once
 * when a price moves (at nice 10 the recorder's bursts held a core now and then: a p99 shift in
 * tick-to-trade, docs/benchmarks.md). Not the idle class: an idle-class thread gets no CPU at all
 * while the cores are busy, so on a saturated machine the recording stopped outright (both recording
 * tests failed under a CPU burner); at nice 19 it keeps ~1.5 % of a busy core and catches up.
 * Best effort: without `chrt`, or elsewhere than Linux, the child stays at `RECORDER_NICE`.
 */
export function lowScheduling(pid: number, done?: (applied: boolean) => void): void {
  if (process.platform !== 'linux') {
    done?.(false)
    return
  }
  execFile('chrt', ['--batch', '--all-tasks', '--pid', '0', String(pid)], { timeout: 5_000 }, (e) =>
    done?.(e === null),
  )
}

/** What the child posts. */
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

/** How the child records: from sockets of its own, or from frames the parent hands it (`recordingTap.ts`). */
export type RecorderStart =
  | { type: 'start'; options: Omit<RecorderProcessOptions, 'onFlush' | 'onError'> }
  | { type: 'start-frames'; options: RecorderFramesOptions }

/** The frames mode's options: no address and no clock (the parent stamps receive times). */
export type RecorderFramesOptions = Omit<
  StreamRecorderOptions,
  'url' | 'clock' | 'streamClock' | 'onFlush' | 'onError'
>

/** A started child: send it messages, stop it (it writes what it holds first). */
export interface RecorderChild {
  readonly dir: string
  /** Queues a batch for the child; `written` runs once the batch is handed to the IPC pipe (or dropped). */
  send(
    message:
      | { type: 'frames'; texts: string[]; times: number[] }
      | { type: 'subscribe'; url: string; clock: ClockImage; channels: string[] },
    written?: () => void,
  ): void
  stop(): Promise<RecordingResult>
}

/**
 * Forks the recorder process at `RECORDER_NICE` and starts it; resolves once it has opened the
 * dataset (and, with sockets, subscribed).
 * @throws {@link DatasetError} when the child cannot start the recording (a folder of another source).
 */
export async function forkRecorder(
  start: RecorderStart,
  hooks: Pick<StreamRecorderOptions, 'onFlush' | 'onError'>,
): Promise<RecorderChild> {
  const child: ChildProcess = fork(
    fileURLToPath(new URL('./recorderProcess.child.mjs', import.meta.url)),
    [],
    {
      execArgv: [],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  )
  try {
    if (child.pid !== undefined) setPriority(child.pid, RECORDER_NICE)
  } catch {
    // A priority we may not set leaves the child at ours: it still runs off the bot's event loop.
  }
  let stopped: ((r: RecordingResult) => void) | undefined
  let failed: ((e: Error) => void) | undefined
  child.on('message', (raw: unknown) => {
    const m = RecorderMessage.safeParse(raw)
    if (!m.success) return
    const msg = m.data
    if (msg.type === 'flushed') hooks.onFlush?.(msg.pushes, msg.rows)
    else if (msg.type === 'error') {
      hooks.onError?.(msg.message)
      failed?.(new DatasetError(msg.message))
    } else if (msg.type === 'stopped') stopped?.(msg.result)
  })
  let stopping = false
  let exited: string | undefined
  child.on('error', (e) => failed?.(e))
  child.on('exit', (code, signal) => {
    const why = `the recorder process exited (${signal ?? code})`
    exited = why
    failed?.(new DatasetError(why))
    // Gone on its own after the start: said once; the caller's sends go nowhere from now on.
    if (failed === undefined && !stopping) hooks.onError?.(`${why}: not recording from now on`)
  })
  const dir = await new Promise<string>((resolve, reject) => {
    failed = reject
    child.on('message', (raw: unknown) => {
      const m = RecorderMessage.safeParse(raw)
      if (m.success && m.data.type === 'started') resolve(m.data.dir)
    })
    child.send(start)
  }).catch((e: unknown) => {
    child.kill()
    throw e
  })
  // After the start, an error is a flush's: reported through onError, the recording goes on.
  failed = undefined
  // Once started, every thread the child has (V8's, libuv's) exists: all of them go batch-class.
  if (child.pid !== undefined) lowScheduling(child.pid)
  return {
    dir,
    send(message, written) {
      if (child.connected) child.send(message, () => written?.())
      else written?.()
    },
    async stop() {
      stopping = true
      if (exited !== undefined)
        throw new DatasetError(`${exited} before the stop: the last flush interval is lost`)
      const result = new Promise<RecordingResult>((resolve, reject) => {
        stopped = resolve
        failed = reject
      })
      child.send({ type: 'stop' })
      const r = await result
      child.disconnect()
      return r
    },
  }
}

/**
 * Starts the recorder process with sockets of its own (`run --record` when the bot's streams are off).
 * @throws {@link DatasetError} when the child cannot start the recording (a folder of another source).
 */
export async function startRecorderProcess(o: RecorderProcessOptions): Promise<StreamRecorder> {
  if (o.clock.rate === 0)
    throw new DatasetError('a stepped clock cannot be followed from the recorder process: record in-process')
  const { onFlush, onError, ...options } = o
  const child = await forkRecorder({ type: 'start', options }, { onFlush, onError })
  return { dir: child.dir, stop: () => child.stop() }
}

/**
 * `run --record`: the public stream the bot receives, recorded from the bot's own sockets. The bot's
 * stream client hands every public frame to this tap as it arrives (perps/stream/frameTap.ts); the tap
 * keeps the frames of recorded channels with their receive time and passes them in batches to the
 * recorder process (recorderProcess.ts, batch scheduling class at nice 19), which parses and writes them. On the
 * bot's thread that is a channel peek and an array push per frame, and one IPC message per
 * `sendEveryMs`: no second socket for what the bot receives, no second parse, no compression.
 *
 * Recorded: `tickers::all` (every listed instrument: the bot receives them all) and, for the traded
 * instruments, `bbo::`, `trades::` and `book::`. Those the bot does not read the recorder process
 * subscribes on sockets of its own (`sockets`), so their frames never reach the bot's process;
 * without `sockets` they ride extra sockets of the bot's pool and skip the bot's parsing. Books are
 * kept at most one per instrument per `bookEveryMs` window.
 */
import { describeError } from '../../errors.ts'
import { channel } from '../../perps/stream/channels.ts'
import type { StreamTap } from '../../perps/stream/frameTap.ts'
import type { DatasetInstrument } from '../dataset/format.ts'
import {
  type ClockImage,
  forkRecorder,
  type RecorderChild,
  type RecorderFramesOptions,
} from './recorderProcess.ts'
import type { StreamRecorderOptions } from './streamRecorder.ts'
import type { RecordingResult } from './streamRecording.ts'

export interface RecordingTapOptions extends Omit<RecorderFramesOptions, 'instruments'> {
  /** The instruments to record (symbols and decimals); a promise when they are still being read. */
  instruments: readonly DatasetInstrument[] | Promise<readonly DatasetInstrument[]>
  /**
   * The stream's address and an image of the bot's clock: the channels the bot does not read (trades,
   * books) are then subscribed by the recorder process on sockets of its own, stamped with the image.
   * Without it (or on a stepped clock, which another process cannot follow) they ride extra sockets
   * of the bot's pool and go to the tap alone.
   */
  sockets?: { url: string; clock: ClockImage } | undefined
  /** How often the frames held go to the recorder process. Default 250 ms. */
  sendEveryMs?: number | undefined
  /** Frames held while the recorder process starts (beyond them the oldest are dropped). Default 200,000. */
  maxHeld?: number | undefined
  onFlush?: StreamRecorderOptions['onFlush']
  onError?: StreamRecorderOptions['onError']
}

export interface RecordingTap extends StreamTap {
  /** The dataset folder once the recorder process runs; rejects when the recording cannot start. */
  readonly ready: Promise<string>
  /** Frames of recorded channels kept so far (books thinned), and of those handed to the recorder process. */
  readonly received: number
  readonly frames: number
  /** Hands over what is held, then stops the recorder process (it writes what it holds first). */
  stop(): Promise<RecordingResult | undefined>
}

/** Batches waiting to be written to the recorder process, at most (40 × 250 ms: 10 s behind). */
const MAX_IN_FLIGHT = 40
/**
 * Frames per message to the recorder process, at most; more wait for the next turn of the event loop.
 * A venue tick at 1,000 instruments brings ~2,000 frames at once, and serializing them in one IPC
 * message held the bot's thread up to ~1-2 ms of CPU (3-10 ms of wall under load) in the tick-to-trade
 * bench's profile.
 */
export const FRAMES_PER_MESSAGE = 500

/** The channels recorded for the traded instruments. */
export function recordedChannels(traded: readonly number[]): string[] {
  return [
    channel.tickers('all'),
    ...traded.flatMap((id) => [channel.bbo(id), channel.trades(id), channel.book(id)]),
  ]
}

/**
 * The tap to give the bot (`streamTap`), at once; the recorder process starts beside it (frames
 * received meanwhile are held, at most `maxHeld`). A start that fails (a folder of another source,
 * the instruments unreadable) rejects `ready`, and the tap then drops every frame.
 */
export function startRecordingTap(o: RecordingTapOptions): RecordingTap {
  const { onFlush, onError, sendEveryMs = 250, maxHeld = 200_000, instruments, sockets, ...options } = o
  const ownSockets = sockets !== undefined && sockets.clock.rate > 0 ? sockets : undefined
  let elsewhere: string[] = []
  const bookEveryMs = o.bookEveryMs ?? 1_000
  let child: RecorderChild | undefined
  let failed = false
  let stopped = false
  let recorded = new Set<string>()
  const lastBook = new Map<string, number>()
  let texts: string[] = []
  let times: number[] = []
  let frames = 0
  let received = 0
  // Batches handed to the IPC pipe but not yet written: a low-priority child slowed by a busy
  // machine must not make the bot's memory grow; past the bound, batches are dropped and counted.
  let inFlight = 0
  let droppedFrames = 0
  /** A turn is asked for the frames past one message's worth; the timer's next send also takes them. */
  let rest: NodeJS.Immediate | undefined
  const send = (): void => {
    if (rest !== undefined) {
      clearImmediate(rest)
      rest = undefined
    }
    if (child === undefined || texts.length === 0) return
    const more = texts.length > FRAMES_PER_MESSAGE
    const batch = more ? texts.splice(0, FRAMES_PER_MESSAGE) : texts
    const stamps = more ? times.splice(0, FRAMES_PER_MESSAGE) : times
    if (!more) {
      texts = []
      times = []
    }
    if (inFlight >= MAX_IN_FLIGHT) {
      if (droppedFrames === 0) onError?.('recording falls behind (the machine is busy): frames are dropped')
      droppedFrames += batch.length
    } else {
      inFlight++
      child.send({ type: 'frames', texts: batch, times: stamps }, () => inFlight--)
      frames += batch.length
    }
    if (more) rest = setImmediate(send)
  }
  const ready = Promise.resolve(instruments)
    .then((list) =>
      forkRecorder(
        { type: 'start-frames', options: { ...options, instruments: [...list] } },
        { onFlush, onError },
      ),
    )
    .then(
      (started) => {
        child = started
        if (ownSockets !== undefined && elsewhere.length > 0)
          started.send({
            type: 'subscribe',
            url: ownSockets.url,
            clock: ownSockets.clock,
            channels: elsewhere,
          })
        send()
        return started.dir
      },
      (e: unknown) => {
        failed = true
        texts = []
        times = []
        throw e
      },
    )
  // The caller reads `ready` for the outcome; a failure is not unhandled in between.
  ready.catch(() => undefined)
  const timer = setInterval(send, sendEveryMs)
  timer.unref()
  return {
    ready,
    get received() {
      return received
    },
    get frames() {
      return frames
    },
    attach(bot) {
      const all = recordedChannels(bot.traded)
      const mine = new Set(bot.channels)
      if (ownSockets === undefined) {
        recorded = new Set(all)
        return all.filter((ch) => !mine.has(ch))
      }
      // What the bot receives is tapped; the rest the recorder process subscribes itself.
      recorded = new Set(all.filter((ch) => mine.has(ch)))
      elsewhere = all.filter((ch) => !mine.has(ch))
      if (child !== undefined && elsewhere.length > 0)
        child.send({ type: 'subscribe', url: ownSockets.url, clock: ownSockets.clock, channels: elsewhere })
      return []
    },
    frame(text, receivedAt, ch) {
      if (stopped || failed || ch === undefined || !recorded.has(ch)) return
      if (ch.startsWith('book::')) {
        const slot = Math.floor(receivedAt / bookEveryMs)
        if (lastBook.get(ch) === slot) return
        lastBook.set(ch, slot)
      }
      if (child === undefined && texts.length >= maxHeld) {
        texts.shift()
        times.shift()
      }
      texts.push(text)
      times.push(receivedAt)
      received++
    },
    async stop() {
      stopped = true
      clearInterval(timer)
      const started = await ready.catch(() => undefined)
      if (started === undefined || child === undefined) return undefined
      while (texts.length > 0) send()
      if (droppedFrames > 0) onError?.(`recording fell behind: ${droppedFrames} frames dropped in all`)
      // A recording that fails at its end is reported; the bot's stop goes on.
      return child.stop().catch((e: unknown) => {
        onError?.(`recording stop failed: ${describeError(e)}`)
        return undefined
      })
    },
  }
}

/**
 * What a stream client makes of one push on a wanted channel, before anyone sees it: its sequence
 * checked (a gap is reported first), a push for an instrument not traded dropped at the door (before
 * parsing or any per-key cache), its data parsed by the push schemas (an entry unchanged field for
 * field reuses the value accepted last time), and rows that fail their schema reported as a gap.
 * The client applies the reading (logs, events) in that order. Pure bookkeeping, no I/O.
 */
import { MAX_KEYS_PER_CHANNEL, PushDataCache } from './pushDataCache.ts'
import { keepableText, type PushText, textKey } from './rawPushText.ts'
import { type PushEnvelope, type PushParseResult, parsePushData, type StreamPush } from './schemas.ts'
import { SequenceTracker } from './sequenceTracker.ts'
import { StreamProtocolError } from './streamErrors.ts'
import type { StreamGap } from './streamTypes.ts'

export interface PushReading {
  /** The push skipped sequence numbers. */
  sequenceGap?: StreamGap | undefined
  /** Dropped at the door (an instrument not traded): pushes dropped so far. */
  foreign?: number | undefined
  /** The data failed its schema (nothing delivered), or some rows did (the rest delivered). */
  invalid?: { error: StreamProtocolError; gap: StreamGap } | undefined
  /** What the listeners get. */
  push?: StreamPush | undefined
  /** The data differs from the channel's last accepted push. */
  changed: boolean
}

/**
 * The text as a string of its own: a data text is a slice of its frame, which would keep the whole
 * frame alive and send every later comparison through the slice to the frame (two objects apart in
 * the heap, one more cache line each time); a kept text is compared with nearly every push of its key.
 * Once per changed push. Lossless: the frame was decoded from UTF-8, so it holds no lone surrogate.
 */
const compactText = (text: string): string => Buffer.from(text, 'utf8').toString('utf8')

const invalidPush = (channel: string, sq: number): StreamGap => ({ channel, reason: 'invalid_push', sq })

export class PushIntake {
  readonly sequences = new SequenceTracker()
  readonly #accepted = new PushDataCache<StreamPush>()
  /** Per channel and key (rawPushText.ts), the data text of the last push accepted and what it was read as. */
  readonly #acceptedText = new Map<string, Map<number, { text: string; push: StreamPush }>>()
  readonly #acceptInstrument: ((iid: number) => boolean) | undefined
  #foreignDropped = 0
  #pushes = 0

  constructor(acceptInstrument: ((iid: number) => boolean) | undefined) {
    this.#acceptInstrument = acceptInstrument
  }

  get pushes(): number {
    return this.#pushes
  }

  get foreignDropped(): number {
    return this.#foreignDropped
  }

  /**
   * A push whose data text equals, character for character, the last accepted data text of its key:
   * read without parsing (the value accepted then, with this push's `ts` and `sq`), else undefined
   * (the caller parses the frame and calls `read`). Nearly every frame of a venue tick is one.
   */
  readText(p: PushText): PushReading | undefined {
    const seen = this.#acceptedText.get(p.ch)?.get(textKey(p.ch, p.data))
    if (seen === undefined || seen.text !== p.data) return undefined
    const check = this.sequences.observe(p.ch, p.sq)
    const sequenceGap: StreamGap | undefined = check.gap
      ? { channel: p.ch, reason: 'sequence_gap', previous: check.previous, sq: p.sq }
      : undefined
    if (this.#foreign(p.ch, seen.push.data))
      return { sequenceGap, foreign: this.#foreignDropped, changed: false }
    this.#pushes++
    return { sequenceGap, push: { ...seen.push, ts: p.ts, sq: p.sq }, changed: false }
  }

  /** `dataText`: the data as received (`rawPushText.ts`), kept for `readText` when it is small and flat. */
  read(env: PushEnvelope, dataText?: string): PushReading {
    const { ch, sq } = env
    const check = this.sequences.observe(ch, sq)
    const sequenceGap: StreamGap | undefined = check.gap
      ? { channel: ch, reason: 'sequence_gap', previous: check.previous, sq }
      : undefined
    if (this.#foreign(ch, env.data)) return { sequenceGap, foreign: this.#foreignDropped, changed: false }
    const known = this.#accepted.lookup(ch, env.data)
    const parsed: PushParseResult =
      known === undefined ? parsePushData(env) : { ok: true, push: { ...known, ts: env.ts, sq } }
    if (parsed.ok && known === undefined) this.#accepted.remember(ch, env.data, parsed.push)
    if (!parsed.ok) {
      const error = new StreamProtocolError(`invalid push on ${ch}`, { details: parsed.issues })
      return { sequenceGap, invalid: { error, gap: invalidPush(ch, sq) }, changed: false }
    }
    // Rows we could not read: the rest is delivered, and a gap asks for the REST read that settles it.
    const invalid =
      parsed.dropped === undefined
        ? undefined
        : {
            error: new StreamProtocolError(`unreadable rows dropped on ${ch}`, { details: parsed.dropped }),
            gap: invalidPush(ch, sq),
          }
    this.#pushes++
    this.#rememberText(ch, dataText, invalid === undefined ? parsed.push : undefined)
    return { sequenceGap, invalid, push: parsed.push, changed: known === undefined }
  }

  /** The last accepted data text of its key (none kept when it is not keepable: a later equal text must not match an older one). */
  #rememberText(ch: string, text: string | undefined, push: StreamPush | undefined): void {
    if (text === undefined) {
      this.#acceptedText.delete(ch)
      return
    }
    const key = textKey(ch, text)
    let byKey = this.#acceptedText.get(ch)
    if (push === undefined || !keepableText(text)) {
      byKey?.delete(key)
      return
    }
    if (byKey === undefined) {
      byKey = new Map()
      this.#acceptedText.set(ch, byKey)
    }
    if (!byKey.has(key) && byKey.size >= MAX_KEYS_PER_CHANNEL) byKey.clear()
    byKey.set(key, { text: compactText(text), push })
  }

  /** The channel is no longer wanted. */
  forget(channel: string): void {
    this.sequences.forget(channel)
    this.#accepted.forget(channel)
    this.#acceptedText.delete(channel)
  }

  /** A new socket: the push cache starts empty. */
  clearCache(): void {
    this.#accepted.clear()
    this.#acceptedText.clear()
  }

  /** A push on a shared channel for an instrument the caller does not trade. */
  #foreign(ch: string, data: unknown): boolean {
    if (this.#acceptInstrument === undefined || !ch.endsWith('::all')) return false
    if (typeof data !== 'object' || data === null) return false
    const iid: unknown = Reflect.get(data, 'iid')
    if (typeof iid !== 'number' || this.#acceptInstrument(iid)) return false
    this.#foreignDropped++
    return true
  }
}

/**
 * What one inbound frame means, for a stream client (streamClient.ts): a push is read (pushIntake.ts)
 * and emitted with its gaps, drops and freshness; a response settles its ack; a resync is a gap; a
 * server error or an unreadable frame is logged at most once per interval. The connection's life
 * (open, auth, subscribe, heartbeat, reconnect) stays with the client.
 */
import type { RateLimitedLog } from '../../logging/rateLimitedLog.ts'
import type { ChannelFreshness } from './channelFreshness.ts'
import type { PushIntake, PushReading } from './pushIntake.ts'
import { pushText } from './rawPushText.ts'
import { ackItems, classifyFrame, type PushEnvelope, type StreamPush } from './schemas.ts'
import { StreamProtocolError, StreamServerError } from './streamErrors.ts'
import type { StreamEventMap, StreamGap } from './streamTypes.ts'

/** What the stream client's rate-limited log says, each kind at most once per interval. */
export type StreamLogKind =
  | 'gap'
  | 'malformed'
  | 'reconnect'
  | 'auth'
  | 'server_error'
  | 'foreign_instrument'
  | 'resync'

export interface FrameReaderParts {
  /** The channels wanted: an unsubscribed channel's last frames are ignored. */
  wanted: ReadonlySet<string>
  intake: PushIntake
  freshness: ChannelFreshness
  logs: RateLimitedLog<StreamLogKind>
  /** Settles the request `id` waits for (the outbox) with the answer's items. */
  resolveAck(id: number, items: ReturnType<typeof ackItems>): void
  /** A gap, reported once per episode (gapHolds.ts): the caller resyncs over REST. */
  gap(gap: StreamGap): void
  emit<K extends 'error' | 'fresh' | 'push'>(event: K, value: StreamEventMap[K]): void
  /** After a changed push the caller routed at once, the rest of the read yields (streamSettings.ts). */
  yieldAfter: ((push: StreamPush) => boolean) | undefined
  yieldNow(): void
}

export class FrameReader {
  readonly #p: FrameReaderParts

  constructor(parts: FrameReaderParts) {
    this.#p = parts
  }

  /** `receivedAt`: the clock's time when the frame was handled (the client's last inbound time). */
  read(text: string, receivedAt: number): void {
    const p = this.#p
    // Most frames repeat their key's last push: compared as text, not parsed (rawPushText.ts).
    const envelope = pushText(text)
    if (envelope !== undefined) {
      if (!p.wanted.has(envelope.ch)) return // an unsubscribed channel's last frames
      const r = p.intake.readText(envelope)
      if (r !== undefined) {
        this.#apply(envelope.ch, r, receivedAt)
        return
      }
    }
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      this.#malformed(new StreamProtocolError('stream frame is not JSON'))
      return
    }
    const frame = classifyFrame(value)
    switch (frame.type) {
      case 'response': {
        // Unmatched: the ping's reply (id 0), or a late ack.
        p.resolveAck(frame.frame.id, ackItems(frame.frame))
        return
      }
      case 'push':
        this.#onPush(frame.frame, envelope?.data, receivedAt)
        return
      case 'resync': {
        // The venue dropped notifications (backpressure); `sq` is the newest dropped, the new baseline.
        const { ch, sq } = frame.frame
        if (!p.wanted.has(ch)) return
        const previous = p.intake.sequences.last(ch)
        p.intake.sequences.observe(ch, sq)
        p.logs.log('info', 'resync', { channel: ch, sq }, `stream: the venue dropped pushes on ${ch}`)
        p.gap({ channel: ch, reason: 'resync', previous, sq })
        return
      }
      case 'error': {
        const err = new StreamServerError(frame.frame.error)
        if (p.logs.log('warn', 'server_error', { code: err.code }, err.message)) p.emit('error', err)
        return
      }
      case 'unknown':
        this.#malformed(new StreamProtocolError('stream frame is neither a push nor a response'))
    }
  }

  /** A frame we cannot read: logged and reported at most once per interval (a venue can send many). */
  #malformed(err: StreamProtocolError): void {
    if (this.#p.logs.log('warn', 'malformed', { details: err.details }, err.message))
      this.#p.emit('error', err)
  }

  /** One push on a channel: read (pushIntake.ts), then logged and emitted in the reading's order. */
  #onPush(env: PushEnvelope, dataText: string | undefined, receivedAt: number): void {
    const { ch } = env
    if (!this.#p.wanted.has(ch)) return // an unsubscribed channel's last frames
    this.#apply(ch, this.#p.intake.read(env, dataText), receivedAt)
  }

  /** A push's reading applied: gaps, drops and bad rows logged, then the push emitted. */
  #apply(ch: string, r: PushReading, receivedAt: number): void {
    const p = this.#p
    if (r.sequenceGap !== undefined) p.gap(r.sequenceGap)
    if (r.foreign !== undefined) {
      p.logs.log(
        'info',
        'foreign_instrument',
        { channel: ch },
        `stream: pushes for instruments not traded are dropped (${r.foreign} so far)`,
      )
      return
    }
    if (r.invalid !== undefined) {
      this.#malformed(r.invalid.error)
      p.gap(r.invalid.gap)
    }
    if (r.push === undefined) return
    if (p.freshness.pushed(ch, receivedAt)) p.emit('fresh', ch)
    p.emit('push', r.push)
    if (r.changed && p.yieldAfter?.(r.push)) p.yieldNow()
  }
}

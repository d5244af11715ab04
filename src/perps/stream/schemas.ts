/**
 * Frames of the venue's WebSocket (ws-protocol §2–4): requests `{id, req: sub|unsub|post, chs, op}`,
 * pushes `{ch, ts, sq, data}` (no `id`), responses correlated by `id` only (`{id, data}` with a
 * `{status}` ack or an array of them; `id: 0` is the ping's reply), and error frames. `parsePush`
 * gives a push typed by its channel kind. Push data schemas: pushSchemas.ts.
 */
import { z } from 'zod'
import { TimestampMs } from '../schemas/common.ts'
import { NotificationsResyncFrame } from '../schemas/notifications.ts'
import { collectDroppedItems } from '../schemas/tolerantArray.ts'
import { type ChannelKind, parseChannel } from './channels.ts'
import { PUSH_DATA_SCHEMAS, type PushDataByKind } from './pushSchemas.ts'

export * from './pushSchemas.ts'

// ---- requests (client → server) -----------------------------------------------------------------

/** Request id: the heartbeat uses 0, everything else counts up from 1. */
export const RequestId = z.number().int().nonnegative()

export const SubscribeFrame = z.looseObject({
  id: RequestId,
  req: z.enum(['sub', 'unsub']),
  chs: z.array(z.string()).min(1),
})
export type SubscribeFrame = z.infer<typeof SubscribeFrame>

export const AuthOp = z.looseObject({
  type: z.literal('auth'),
  args: z.looseObject({ proxy: z.string(), secret: z.string() }),
})
export const PingOp = z.looseObject({ type: z.literal('ping') })
/** Any other op (signed trading commands: `createOrders`, `cancelOrders`, ...). */
export const CommandOp = z.looseObject({ type: z.string(), args: z.unknown().optional() })

export const PostFrame = z.looseObject({
  id: RequestId,
  req: z.literal('post'),
  op: z.union([AuthOp, PingOp, CommandOp]),
  // Signed commands only (the same envelope as REST).
  salt: z.number().int().nonnegative().optional(),
  sig: z.string().optional(),
  ts: z.number().int().optional(),
  exp: z.number().int().optional(),
})
export type PostFrame = z.infer<typeof PostFrame>

export const RequestFrame = z.union([SubscribeFrame, PostFrame])
export type RequestFrame = z.infer<typeof RequestFrame>

/** The heartbeat frame exactly as the official client sends it (a literal string). */
export const PING_FRAME = '{"id":0,"req":"post","op":{"type":"ping"}}'

export function authFrame(id: number, proxy: string, secret: string): string {
  return JSON.stringify({ id, req: 'post', op: { type: 'auth', args: { proxy, secret } } })
}

export function subscribeFrame(id: number, req: 'sub' | 'unsub', chs: readonly string[]): string {
  return JSON.stringify({ id, req, chs })
}

// ---- responses (server → client) ----------------------------------------------------------------

export const AckItem = z.looseObject({
  status: z.enum(['ok', 'err']),
  error: z.string().optional(),
  /** The ping reply carries the server's time and sequence (docs). */
  ts: TimestampMs.optional(),
  sq: z.number().int().nonnegative().optional(),
})
export type AckItem = z.infer<typeof AckItem>

/** `{id, data}`: a `{status}` ack or an array of them (subscriptions answer one item per channel). */
export const ResponseFrame = z.looseObject({
  id: RequestId,
  data: z.union([AckItem, z.array(AckItem)]).optional(),
  /** Top-level form of an error (`{id, status:'err', error}`), which the official client also accepts. */
  status: z.enum(['ok', 'err']).optional(),
  error: z.string().optional(),
})
export type ResponseFrame = z.infer<typeof ResponseFrame>

/** An error without a request id, e.g. `message_rate_limited` before the socket is closed. */
export const ErrorFrame = z.looseObject({ status: z.literal('err'), error: z.string() })
export type ErrorFrame = z.infer<typeof ErrorFrame>

/** The ack items of a response, whichever of its forms it came in. */
export function ackItems(frame: ResponseFrame): AckItem[] {
  if (Array.isArray(frame.data)) return frame.data
  if (frame.data !== undefined) return [frame.data]
  if (frame.status !== undefined)
    return [
      frame.error === undefined ? { status: frame.status } : { status: frame.status, error: frame.error },
    ]
  return []
}

// ---- pushes -------------------------------------------------------------------------------------

export const PushEnvelope = z.looseObject({
  ch: z.string(),
  ts: TimestampMs,
  /** Per-channel sequence number: each push is the previous + 1. */
  sq: z.number().int().nonnegative(),
  data: z.unknown(),
})
export type PushEnvelope = z.infer<typeof PushEnvelope>

/** The push of each channel kind (indexed by a generic kind, it keeps the kind and the push correlated). */
export type StreamPushByKind = {
  [K in ChannelKind]: {
    kind: K
    ch: string
    /** Instrument of a per-instrument channel (from the name), else undefined. */
    iid: number | undefined
    ts: number
    sq: number
    data: PushDataByKind[K]
  }
}

/** A push typed by its channel kind: narrowing on `kind` types `data`. */
export type StreamPush = StreamPushByKind[ChannelKind]

export type PushParseResult =
  /** `dropped`: rows of a list push that could not be read (the caller treats them as a gap). */
  | { ok: true; push: StreamPush; dropped?: string[] | undefined }
  | {
      ok: false
      ch: string | undefined
      reason: 'not_a_push' | 'unknown_channel' | 'invalid_data'
      issues: string[]
    }

/** Validates a push envelope and its data against the channel's schema. */
export function parsePush(frame: unknown): PushParseResult {
  const env = PushEnvelope.safeParse(frame)
  if (!env.success) return { ok: false, ch: undefined, reason: 'not_a_push', issues: issuesOf(env.error) }
  return parsePushData(env.data)
}

/** Validates the data of an envelope already checked against its channel's schema. */
export function parsePushData(env: PushEnvelope): PushParseResult {
  const { ch, ts, sq, data } = env
  const parsed = parseChannel(ch)
  if (parsed === undefined) return { ok: false, ch, reason: 'unknown_channel', issues: [] }
  const schema: z.ZodType = PUSH_DATA_SCHEMAS[parsed.kind]
  const { value: d, dropped } = collectDroppedItems(() => schema.safeParse(data))
  if (!d.success) return { ok: false, ch, reason: 'invalid_data', issues: issuesOf(d.error) }
  // The schema of `parsed.kind` produced `d.data`, so the pair is consistent by construction.
  const push = { kind: parsed.kind, ch, iid: parsed.iid, ts, sq, data: d.data } as StreamPush
  return dropped.length > 0 ? { ok: true, push, dropped } : { ok: true, push }
}

function issuesOf(error: z.ZodError): string[] {
  return error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
}

/** What one inbound text frame is. */
export type InboundFrame =
  | { type: 'push'; frame: PushEnvelope }
  /** The notifications channel's backpressure frame (bindings 0.10.0): pushes were dropped up to `sq`. */
  | { type: 'resync'; frame: NotificationsResyncFrame }
  | { type: 'response'; frame: ResponseFrame }
  | { type: 'error'; frame: ErrorFrame }
  | { type: 'unknown'; raw: unknown }

/** Classifies a decoded frame: a response has an `id`, a push a `ch`, an error `status:'err'`. */
export function classifyFrame(value: unknown): InboundFrame {
  // Pushes are nearly every frame: try them first when the frame has a channel.
  if (typeof value === 'object' && value !== null && 'ch' in value) {
    const push = PushEnvelope.safeParse(value)
    if (push.success) return { type: 'push', frame: push.data }
    const resync = NotificationsResyncFrame.safeParse(value)
    if (resync.success) return { type: 'resync', frame: resync.data }
  }
  const res = ResponseFrame.safeParse(value)
  if (res.success) return { type: 'response', frame: res.data }
  const push = PushEnvelope.safeParse(value)
  if (push.success) return { type: 'push', frame: push.data }
  const err = ErrorFrame.safeParse(value)
  if (err.success) return { type: 'error', frame: err.data }
  return { type: 'unknown', raw: value }
}

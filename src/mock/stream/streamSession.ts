/**
 * One connection of the mock's WebSocket, apart from the socket library: request frames in, acks
 * and pushes out. It answers as the venue does (ws-protocol §3): `auth` binds the account, `sub`
 * answers one `{status}` per channel, the ping is answered on `id: 0`, and pushes carry a
 * per-channel `sq` counting up from 1 on this connection.
 *
 * Refusals (decisions where the venue is silent): an unknown channel `unknown_channel`, a private
 * channel before `auth` `unauthorized`, past the per-connection cap `subscription_limit`, candles
 * other than 1m `unsupported_channel`, trading ops over the socket `unsupported_operation` (the
 * mock trades over REST), over the per-IP message budget `message_rate_limited`.
 */
import { type ParsedChannel, parseChannel } from '../../perps/stream/channels.ts'
import { type AckItem, AuthOp, PostFrame, SubscribeFrame } from '../../perps/stream/schemas.ts'

export interface SessionPort {
  send(text: string): void
  /** Closing handshake (`terminate` false) or an abrupt drop (`terminate` true). */
  close(code: number, reason: string, terminate?: boolean): void
  readonly bufferedAmount: number
}

export interface SessionContext {
  /** The server's time (push `ts`, ping replies). */
  now(): number
  /** The owner of a proxy/secret pair; throws when refused. */
  authenticate(proxy: string, secret: string): string
  /** Takes one message from the client's per-IP budget. */
  allowMessage(): boolean
  maxSubscriptions: number
  /** Subscriptions or the bound account changed (the server re-derives what to publish). */
  changed(): void
}

export class StreamSession {
  readonly ip: string
  /** Lower-case owner address once authenticated. */
  owner: string | undefined
  readonly subscriptions = new Set<string>()
  readonly #parsed = new Map<string, ParsedChannel>()
  readonly #sq = new Map<string, number>()
  readonly #port: SessionPort
  readonly #ctx: SessionContext
  lastInboundAt: number
  /** While now < stalledUntil the server sends nothing on this connection (stall fault). */
  stalledUntil = 0
  /** The next push is skipped with its `sq` spent (sequence-gap fault). */
  skipNextPush = false
  closed = false

  constructor(ip: string, port: SessionPort, ctx: SessionContext, now: number) {
    this.ip = ip
    this.#port = port
    this.#ctx = ctx
    this.lastInboundAt = now
  }

  get bufferedAmount(): number {
    return this.#port.bufferedAmount
  }

  stalled(now: number): boolean {
    return now < this.stalledUntil
  }

  /** Handles one inbound text frame at virtual time `now`. */
  onText(text: string, now: number): void {
    this.lastInboundAt = now
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      this.#send({ status: 'err', error: 'invalid JSON' })
      return
    }
    const id = typeof value === 'object' && value !== null && 'id' in value ? value.id : undefined
    if (!this.#ctx.allowMessage()) {
      const err = { status: 'err', error: 'message_rate_limited' }
      this.#send(typeof id === 'number' ? { id, data: err } : err)
      return
    }
    const sub = SubscribeFrame.safeParse(value)
    const post = sub.success ? undefined : PostFrame.safeParse(value)
    if (sub.success) {
      const frame = sub.data
      if (frame.req === 'sub') {
        this.#send({ id: frame.id, data: frame.chs.map((ch) => this.#subscribe(ch)) })
        return
      }
      for (const ch of frame.chs) {
        this.subscriptions.delete(ch)
        this.#parsed.delete(ch)
      }
      this.#ctx.changed()
      this.#send({ id: frame.id, data: frame.chs.map(() => ({ status: 'ok' })) })
    } else if (post?.success === true) {
      const { id: reqId, op } = post.data
      if (op.type === 'ping') this.#send({ id: 0, data: { status: 'ok', ts: this.#ctx.now() } })
      else if (op.type === 'auth') this.#send({ id: reqId, data: this.#auth(op) })
      else this.#send({ id: reqId, data: { status: 'err', error: 'unsupported_operation' } })
    } else {
      const err = { status: 'err', error: 'invalid request' }
      this.#send(typeof id === 'number' ? { id, data: err } : err)
    }
  }

  #subscribe(ch: string): AckItem {
    const parsed = parseChannel(ch)
    if (parsed === undefined) return { status: 'err', error: 'unknown_channel' }
    if (parsed.private && this.owner === undefined) return { status: 'err', error: 'unauthorized' }
    if (parsed.kind === 'klines' && parsed.interval !== '1m')
      return { status: 'err', error: 'unsupported_channel' }
    if (this.subscriptions.has(ch)) return { status: 'ok' }
    if (this.subscriptions.size >= this.#ctx.maxSubscriptions)
      return { status: 'err', error: 'subscription_limit' }
    this.subscriptions.add(ch)
    this.#parsed.set(ch, parsed)
    this.#ctx.changed()
    return { status: 'ok' }
  }

  #auth(op: unknown): AckItem {
    const auth = AuthOp.safeParse(op)
    if (!auth.success) return { status: 'err', error: 'unauthorized' }
    let owner: string
    try {
      owner = this.#ctx.authenticate(auth.data.args.proxy, auth.data.args.secret).toLowerCase()
    } catch {
      return { status: 'err', error: 'unauthorized' }
    }
    if (this.owner !== undefined && this.owner !== owner)
      // Another account: the previous one's private channels do not carry over.
      for (const [ch, p] of this.#parsed)
        if (p.private) {
          this.subscriptions.delete(ch)
          this.#parsed.delete(ch)
        }
    this.owner = owner
    this.#ctx.changed()
    return { status: 'ok' }
  }

  /**
   * Pushes serialized `data` on `ch` if subscribed (data is serialized once for every session); a
   * pending gap fault spends one `sq` without sending.
   */
  push(ch: string, dataJson: string, ts: number): void {
    if (!this.subscriptions.has(ch) || this.closed) return
    const sq = (this.#sq.get(ch) ?? 0) + 1
    this.#sq.set(ch, sq)
    if (this.skipNextPush) {
      this.skipNextPush = false
      return
    }
    this.#write(`{"ch":${JSON.stringify(ch)},"ts":${ts},"sq":${sq},"data":${dataJson}}`)
  }

  /** Private channels this session wants. */
  privateChannels(): Set<string> {
    const out = new Set<string>()
    for (const [ch, p] of this.#parsed) if (p.private) out.add(ch)
    return out
  }

  sendError(error: string): void {
    this.#send({ status: 'err', error })
  }

  close(code: number, reason: string, terminate = false): void {
    if (this.closed) return
    this.closed = true
    this.#port.close(code, reason, terminate)
  }

  #send(value: unknown): void {
    this.#write(JSON.stringify(value))
  }

  #write(text: string): void {
    if (this.closed || this.stalled(this.#ctx.now())) return
    this.#port.send(text)
  }
}

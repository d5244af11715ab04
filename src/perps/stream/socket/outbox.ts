/**
 * What a stream client sends: frames within the per-minute message budget (over it, requests wait
 * for the window and skippable frames such as pings are dropped), request ids counting up from 1 for
 * the client's life (never reset on reconnect, as the official session), and every request's ack
 * bounded by `ackTimeoutMs`: no answer, or a failed send, is reported through `onFailure`.
 */
import type { Clock, TimerId } from '../../../clock.ts'
import type { AckItem } from '../schemas.ts'
import { MessageWindow } from './messageWindow.ts'
import type { StreamSocket } from './socket.ts'

interface Pending {
  onAck: (items: AckItem[]) => void
  timer: TimerId | undefined
}

export class Outbox {
  readonly #clock: Clock
  readonly #window: MessageWindow
  readonly #ackTimeoutMs: number
  readonly #onFailure: (reason: string) => void
  readonly #pending = new Map<number, Pending>()
  #queue: { text: string; id: number | undefined }[] = []
  #flushTimer: TimerId | undefined
  #socket: StreamSocket | undefined
  #nextId = 1

  constructor(
    clock: Clock,
    messagesPerMinute: number,
    ackTimeoutMs: number,
    onFailure: (reason: string) => void,
  ) {
    this.#clock = clock
    this.#window = new MessageWindow(messagesPerMinute)
    this.#ackTimeoutMs = ackTimeoutMs
    this.#onFailure = onFailure
  }

  /** Frames sent in the last minute. */
  used(): number {
    return this.#window.used(this.#clock.now())
  }

  attach(socket: StreamSocket): void {
    this.detach()
    this.#socket = socket
  }

  /** Forgets the socket, its queue and its pending requests (their acks can no longer come). */
  detach(): void {
    this.#socket = undefined
    for (const p of this.#pending.values()) if (p.timer !== undefined) this.#clock.clearTimeout(p.timer)
    this.#pending.clear()
    this.#queue = []
    if (this.#flushTimer !== undefined) this.#clock.clearTimeout(this.#flushTimer)
    this.#flushTimer = undefined
  }

  /** Sends a request built for the next id; `onAck` gets its ack items. */
  request(build: (id: number) => string, onAck: (items: AckItem[]) => void): void {
    const id = this.#nextId++
    this.#pending.set(id, { onAck, timer: undefined })
    this.#send(build(id), id, false)
  }

  /** Sends a frame that needs no ack; dropped rather than queued when over the budget. */
  sendSkippable(text: string): void {
    this.#send(text, undefined, true)
  }

  /** Delivers an ack; false when nothing waits for `id` (the ping's reply, a late ack). */
  resolve(id: number, items: AckItem[]): boolean {
    const pending = this.#pending.get(id)
    if (pending === undefined) return false
    this.#pending.delete(id)
    if (pending.timer !== undefined) this.#clock.clearTimeout(pending.timer)
    pending.onAck(items)
    return true
  }

  #send(text: string, id: number | undefined, skippable: boolean): void {
    const socket = this.#socket
    if (socket === undefined) return
    const now = this.#clock.now()
    if (this.#queue.length === 0 && this.#window.tryTake(now)) {
      this.#write(socket, text, id)
      return
    }
    if (skippable) return
    this.#queue.push({ text, id })
    if (this.#flushTimer === undefined) this.#scheduleFlush(now)
  }

  #scheduleFlush(now: number): void {
    this.#flushTimer = this.#clock.setTimeout(() => this.#flush(), this.#window.nextFreeAt(now) - now)
  }

  #flush(): void {
    this.#flushTimer = undefined
    const socket = this.#socket
    if (socket === undefined) return
    const now = this.#clock.now()
    while (this.#queue.length > 0 && this.#socket === socket && this.#window.tryTake(now)) {
      const next = this.#queue.shift()
      if (next !== undefined) this.#write(socket, next.text, next.id)
    }
    if (this.#queue.length > 0 && this.#socket === socket) this.#scheduleFlush(now)
  }

  #write(socket: StreamSocket, text: string, id: number | undefined): void {
    const pending = id === undefined ? undefined : this.#pending.get(id)
    if (pending !== undefined)
      pending.timer = this.#clock.setTimeout(() => {
        if (this.#pending.has(id ?? -1)) this.#onFailure(`no answer to request ${id}`)
      }, this.#ackTimeoutMs)
    try {
      socket.send(text)
    } catch (e) {
      this.#onFailure(`send failed: ${e instanceof Error ? e.message : String(e)}`)
    }
  }
}

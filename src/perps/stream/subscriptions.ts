/**
 * A stream client's subscriptions: the channels wanted (kept across reconnects) and those the
 * current socket acknowledged; at most `maxSubscriptions` wanted in all, private channels only with
 * credentials. Frames carry at most `maxSubscriptions` channels each (`chunks`).
 */
import { InputValidationError } from '../../errors.ts'
import { parseChannel } from './channels.ts'
import { StreamLimitError } from './streamErrors.ts'

export class Subscriptions {
  /** Subscribed, or to be subscribed on the next open. */
  readonly wanted = new Set<string>()
  /** Acknowledged on the current socket. */
  readonly acked = new Set<string>()
  readonly #max: number
  readonly #hasCredentials: boolean

  constructor(o: { maxSubscriptions: number; hasCredentials: boolean }) {
    this.#max = o.maxSubscriptions
    this.#hasCredentials = o.hasCredentials
  }

  /**
   * Adds channels to the wanted ones; returns those that were not wanted yet.
   * @throws {InputValidationError} an unknown channel, or a private one without credentials.
   * @throws {StreamLimitError} more than `maxSubscriptions` channels in all.
   */
  add(channels: readonly string[]): string[] {
    for (const ch of channels) {
      const parsed = parseChannel(ch)
      if (parsed === undefined) throw new InputValidationError(`unknown stream channel '${ch}'`)
      if (parsed.private && !this.#hasCredentials)
        throw new InputValidationError(`channel '${ch}' is private: the stream needs credentials`)
    }
    const added = [...new Set(channels)].filter((ch) => !this.wanted.has(ch))
    if (this.wanted.size + added.length > this.#max)
      throw new StreamLimitError(
        `${this.wanted.size + added.length} channels exceed ${this.#max} per connection`,
      )
    for (const ch of added) this.wanted.add(ch)
    return added
  }

  /** Drops channels; returns those no longer wanted, and among them those acknowledged (to unsubscribe). */
  remove(channels: readonly string[]): { removed: string[]; live: string[] } {
    const removed = channels.filter((ch) => this.wanted.delete(ch))
    return { removed, live: removed.filter((ch) => this.acked.delete(ch)) }
  }

  /** Channels in frames of at most `maxSubscriptions`. */
  chunks(channels: readonly string[]): string[][] {
    const out: string[][] = []
    for (let i = 0; i < channels.length; i += this.#max) out.push(channels.slice(i, i + this.#max))
    return out
  }
}

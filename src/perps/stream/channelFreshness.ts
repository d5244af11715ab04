/**
 * Which channels are fresh: a channel is fresh from its first push until it has been silent for its
 * staleness bound (freshness.ts), or its socket goes down; event channels, silent when nothing
 * happens, are marked fresh while subscribed on a live socket. The caller emits both edges.
 */
export class ChannelFreshness {
  readonly #fresh = new Set<string>()
  readonly #lastPushAt = new Map<string, number>()
  readonly #staleAfter: (channel: string) => number

  constructor(staleAfter: (channel: string) => number) {
    this.#staleAfter = staleAfter
  }

  /** The channel's staleness bound (infinite for event channels). */
  staleAfter(channel: string): number {
    return this.#staleAfter(channel)
  }

  /** A push arrived; true when the channel just turned fresh. */
  pushed(channel: string, now: number): boolean {
    this.#lastPushAt.set(channel, now)
    return this.mark(channel)
  }

  /** True when the channel just turned fresh. */
  mark(channel: string): boolean {
    if (this.#fresh.has(channel)) return false
    this.#fresh.add(channel)
    return true
  }

  isFresh(channel: string): boolean {
    return this.#fresh.has(channel)
  }

  lastPushAt(channel: string): number | undefined {
    return this.#lastPushAt.get(channel)
  }

  /** The channel is no longer wanted. */
  forget(channel: string): void {
    this.#fresh.delete(channel)
    this.#lastPushAt.delete(channel)
  }

  /** Each fresh channel silent beyond its bound turns stale (`onStale`, as it is found). */
  expire(now: number, onStale: (channel: string) => void): void {
    for (const channel of this.#fresh) {
      const last = this.#lastPushAt.get(channel) ?? 0
      if (now - last > this.#staleAfter(channel)) {
        this.#fresh.delete(channel)
        onStale(channel)
      }
    }
  }

  /** The socket is gone: every channel turns stale; returns those that were fresh. */
  clear(): string[] {
    const wasFresh = [...this.#fresh]
    this.#fresh.clear()
    return wasFresh
  }
}

/**
 * Which channels are fresh: a channel is fresh from its first push until it has been silent for its
 * staleness bound (freshness.ts), or its socket goes down; event channels, silent when nothing
 * happens, are marked fresh while subscribed on a live socket. The caller emits both edges. A
 * channel's bound is a function of its name (the client's `staleAfterMs`), asked once per channel.
 */
export class ChannelFreshness {
  readonly #fresh = new Set<string>()
  /**
   * Per channel: its last push, its staleness bound (asked once: `expire` reads it every second), and
   * whether it is in `#fresh` (kept with every change of the set: a push asks one map, not two).
   */
  readonly #pushes = new Map<string, { at: number; bound: number; fresh: boolean }>()
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
    const seen = this.#pushes.get(channel)
    if (seen === undefined) {
      const fresh = this.#fresh.has(channel)
      this.#pushes.set(channel, { at: now, bound: this.#staleAfter(channel), fresh })
    } else {
      seen.at = now
      if (seen.fresh) return false
    }
    return this.mark(channel)
  }

  /** True when the channel just turned fresh. */
  mark(channel: string): boolean {
    if (this.#fresh.has(channel)) return false
    this.#fresh.add(channel)
    const seen = this.#pushes.get(channel)
    if (seen !== undefined) seen.fresh = true
    return true
  }

  isFresh(channel: string): boolean {
    return this.#fresh.has(channel)
  }

  lastPushAt(channel: string): number | undefined {
    return this.#pushes.get(channel)?.at
  }

  /** The channel is no longer wanted. */
  forget(channel: string): void {
    this.#fresh.delete(channel)
    this.#pushes.delete(channel)
  }

  /** Each fresh channel silent beyond its bound turns stale (`onStale`, as it is found). */
  expire(now: number, onStale: (channel: string) => void): void {
    for (const channel of this.#fresh) {
      const seen = this.#pushes.get(channel)
      if (now - (seen?.at ?? 0) > (seen?.bound ?? this.#staleAfter(channel))) {
        this.#fresh.delete(channel)
        if (seen !== undefined) seen.fresh = false
        onStale(channel)
      }
    }
  }

  /** The socket is gone: every channel turns stale; returns those that were fresh. */
  clear(): string[] {
    const wasFresh = [...this.#fresh]
    this.#fresh.clear()
    for (const channel of wasFresh) {
      const seen = this.#pushes.get(channel)
      if (seen !== undefined) seen.fresh = false
    }
    return wasFresh
  }
}

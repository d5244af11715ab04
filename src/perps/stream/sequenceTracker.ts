/**
 * Per-channel sequence tracking, as the official session does it (ws-protocol §4): the first push on
 * a channel sets the baseline; any `sq` other than previous + 1 (a gap, a duplicate or a step back)
 * is reported, and becomes the new baseline so one loss is reported once.
 */

export type SequenceCheck = { readonly gap: false } | { readonly gap: true; readonly previous: number }

/** The answer for a push in sequence, shared: nearly every push is one (no allocation per push). */
const IN_SEQUENCE: SequenceCheck = Object.freeze({ gap: false })

export class SequenceTracker {
  readonly #last = new Map<string, number>()

  /** Records `sq` on `channel` and says whether it broke the sequence. */
  observe(channel: string, sq: number): SequenceCheck {
    const previous = this.#last.get(channel)
    this.#last.set(channel, sq)
    if (previous === undefined || sq === previous + 1) return IN_SEQUENCE
    return { gap: true, previous }
  }

  last(channel: string): number | undefined {
    return this.#last.get(channel)
  }

  forget(channel: string): void {
    this.#last.delete(channel)
  }

  /** A new socket starts new sequences. */
  reset(): void {
    this.#last.clear()
  }
}

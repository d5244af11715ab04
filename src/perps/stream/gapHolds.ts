/**
 * Gap episodes per channel, so a venue that gaps on every push costs one REST resync per hold, not
 * one per push: the first gap on a channel is reported at once and opens a hold of `holdMs`; gaps
 * during the hold are folded into one trailing gap when it ends (so the last one is resynced too),
 * which opens the next hold. Timers on the injected clock; at most one hold per wanted channel.
 */
import type { Clock } from '../../clock.ts'
import type { StreamGap } from './streamTypes.ts'

interface Hold {
  /** The latest gap seen during the hold, reported when it ends. */
  pending: StreamGap | undefined
  timer: unknown
}

export class GapHolds {
  readonly #held = new Map<string, Hold>()
  readonly #clock: Pick<Clock, 'setTimeout' | 'clearTimeout'>
  readonly #holdMs: number
  readonly #report: { log(gap: StreamGap): void; emit(gap: StreamGap): void }
  readonly #wanted: (channel: string) => boolean
  #count = 0

  constructor(o: {
    clock: Pick<Clock, 'setTimeout' | 'clearTimeout'>
    holdMs: number
    /** A reported gap: logged first, emitted once its hold is open. */
    report: { log(gap: StreamGap): void; emit(gap: StreamGap): void }
    /** Whether the channel is still wanted when a trailing gap would be reported. */
    wanted: (channel: string) => boolean
  }) {
    this.#clock = o.clock
    this.#holdMs = o.holdMs
    this.#report = o.report
    this.#wanted = o.wanted
  }

  /** Gaps seen in all, reported or folded. */
  get count(): number {
    return this.#count
  }

  /** One gap: reported now, or folded into the channel's open hold. */
  note(gap: StreamGap): void {
    this.#count++
    const held = this.#held.get(gap.channel)
    if (held !== undefined) {
      held.pending = gap
      return
    }
    this.#open(gap)
  }

  /** Ends the channel's hold without reporting what it folded (the channel is no longer wanted). */
  release(channel: string): void {
    const held = this.#held.get(channel)
    if (held === undefined) return
    this.#clock.clearTimeout(held.timer)
    this.#held.delete(channel)
  }

  releaseAll(): void {
    for (const channel of [...this.#held.keys()]) this.release(channel)
  }

  #open(gap: StreamGap): void {
    this.#report.log(gap)
    const hold: Hold = { pending: undefined, timer: undefined }
    hold.timer = this.#clock.setTimeout(() => {
      this.#held.delete(gap.channel)
      if (hold.pending !== undefined && this.#wanted(gap.channel)) this.#open(hold.pending)
    }, this.#holdMs)
    this.#held.set(gap.channel, hold)
    this.#report.emit(gap)
  }
}

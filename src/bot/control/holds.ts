/**
 * Holds: instruments kept halted from outside the risk assessment, each by one or more sources (an
 * operator's pause, a protection's breach, a cooldown after a loss). An instrument is held while any
 * source holds it; its actor gets one `HOLD` with every reason joined, and one without a reason when
 * the last source lets go (the actor cancels its orders while held and quotes again at once after).
 * A restarted actor gets its hold again. A hold of every instrument (`ids` undefined: a pause without
 * an instrument) also holds an instrument a reload adds while it stands.
 */
import type { InstrumentEvent } from '../instrument/instrument.machine.ts'
import type { Signal } from '../shared/signal.ts'

/**
 * Who holds: `protection` (a breached limit), `pause` (the operator), `removed` (gone from the
 * configuration at a reload), `cooldown` (after a realized loss).
 */
export type HoldSource = 'protection' | 'pause' | 'removed' | 'cooldown'

export interface HeldInstrument {
  id: number
  symbol: string
  /** Each source's reason, in the order `HoldSource` lists them. */
  reasons: { source: HoldSource; reason: string }[]
}

export interface Holds {
  /**
   * Holds (with a reason) or releases (undefined) the instruments for one source; `ids` undefined is
   * every traded instrument. Returns the instruments whose hold by that source changed.
   */
  set(source: HoldSource, ids: readonly number[] | undefined, reason: string | undefined): number[]
  /** Whether the instrument is held by that source (any source when omitted). */
  isHeld(id: number, source?: HoldSource | undefined): boolean
  /** The held instruments, with every source's reason. */
  snapshot(): HeldInstrument[]
}

const ORDER: readonly HoldSource[] = ['protection', 'pause', 'removed', 'cooldown']

export function createHolds(o: {
  actors: {
    readonly instruments: readonly { id: number; symbol: string }[]
    readonly restarted: Pick<Signal<number>, 'subscribe'>
    /** An instrument a reload added: held at once by the holds of every instrument. Absent: fixed instruments. */
    readonly joined?: { subscribe(listener: (i: { id: number }) => void): () => void } | undefined
    route(ids: readonly number[] | undefined, event: InstrumentEvent): void
  }
}): Holds {
  const held = new Map<number, Map<HoldSource, string>>()
  const reasonOf = (id: number): string | undefined => {
    const by = held.get(id)
    if (by === undefined || by.size === 0) return undefined
    return ORDER.flatMap((s) => by.get(s) ?? []).join('; ')
  }
  const tell = (id: number): void => o.actors.route([id], { type: 'HOLD', reason: reasonOf(id) })
  o.actors.restarted.subscribe((id) => {
    if (held.has(id)) tell(id)
  })
  const traded = new Set(o.actors.instruments.map((i) => i.id))
  /** Holds set for every instrument (`ids` undefined), by source: they apply to one added later too. */
  const everyone = new Map<HoldSource, string>()
  o.actors.joined?.subscribe((i) => {
    if (traded.has(i.id)) return
    traded.add(i.id)
    for (const [source, reason] of everyone) holds.set(source, [i.id], reason)
  })
  const holds: Holds = {
    set(source, ids, reason) {
      if (ids === undefined) {
        if (reason === undefined) everyone.delete(source)
        else everyone.set(source, reason)
      }
      const changed: number[] = []
      for (const id of ids ?? [...traded]) {
        if (!traded.has(id)) continue
        const by = held.get(id) ?? new Map<HoldSource, string>()
        if (by.get(source) === reason) continue
        if (reason === undefined) by.delete(source)
        else by.set(source, reason)
        if (by.size === 0) held.delete(id)
        else held.set(id, by)
        changed.push(id)
        tell(id)
      }
      return changed
    },
    isHeld: (id, source) => (source === undefined ? held.has(id) : held.get(id)?.has(source) === true),
    snapshot: () =>
      o.actors.instruments.flatMap((i) => {
        const by = held.get(i.id)
        if (by === undefined) return []
        return [
          {
            id: i.id,
            symbol: i.symbol,
            reasons: ORDER.flatMap((source) => {
              const reason = by.get(source)
              return reason === undefined ? [] : [{ source, reason }]
            }),
          },
        ]
      }),
  }
  return holds
}

/**
 * The joint from inputs to the instrument actors, declared here by the inputs: where an input goes
 * (`route`), which instruments are traded and what each reads, which actor restarted (its inputs
 * are fed again), and which instrument joined (a reload added it). The instrument actors provide it.
 */
import type { CatalogueQuery } from '../../strategy/strategy.ts'
import type { InstrumentEvent } from '../instrument/context.ts'

/** A traded instrument as the inputs see it. */
export interface InputInstrument {
  id: number
  symbol: string
  asset: string
  catalogueQuery: CatalogueQuery | undefined
  /** Whether its strategy reads statistics: only then are they read for it. */
  readsStatistics: boolean
}

export interface ActorInbox {
  readonly instruments: readonly InputInstrument[]
  /** Sends an input to the listed instruments' actors (all when `ids` is undefined). */
  route(ids: readonly number[] | undefined, event: InstrumentEvent): void
  /** An actor was restarted (its id): its inputs must be fed again. */
  readonly restarted: { subscribe(listener: (id: number) => void): () => void }
  /**
   * An instrument to serve as it is now: added by a reload (it is in `instruments` already), or
   * reading other inputs than before (statistics, a catalogue query). Absent: the instruments are
   * fixed (tests, benchmarks).
   */
  readonly joined?: { subscribe(listener: (instrument: InputInstrument) => void): () => void } | undefined
}

/** The open-order book as the inputs drive it: a REST read of open orders, published to its subscribers. */
export interface OrderReconciler {
  reconcile(
    instrumentIds?: readonly number[] | undefined,
    options?: { signal?: AbortSignal | undefined },
  ): Promise<void>
}

/**
 * What every conformance property is built from: conformance.ts makes one context per strategy and
 * hands it to each group of properties (guardChecks.ts and its own).
 */
import type { Arbitrary } from 'fast-check'
import type { DesiredQuote, StrategySnapshot } from '../strategy/strategy.ts'
import type { SnapshotArbitraryOptions } from './arbitraries.ts'

export interface ConformanceCheck {
  readonly name: string
  run(): void
}

/** Which snapshots a property draws: risk modes, index and BBO presence. */
export type CaseOptions = Pick<SnapshotArbitraryOptions, 'modes' | 'index' | 'bbo'>

export interface CheckContext<P> {
  /** Params drawn (parsed with the strategy's schema, frozen). */
  readonly params: Arbitrary<P>
  /** Snapshots for these params: positions relative to their cap, their catalogue events, BBO ages. */
  snapshotsFor(params: P, snap?: CaseOptions): Arbitrary<StrategySnapshot>
  /** The params' position cap. */
  capOf(params: P): string | undefined
  /** The strategy's quotes for a frozen copy of the snapshot. */
  quote(s: StrategySnapshot, p: P): DesiredQuote[]
  /** Fails the case, showing the quotes it is about. */
  fail(msg: string, quotes: readonly DesiredQuote[]): never
  /** A named property over `arb`, run with the kit's case count and seed. */
  property<T extends unknown[]>(
    name: string,
    arb: Arbitrary<T>,
    check: (...args: T) => void,
  ): ConformanceCheck
}

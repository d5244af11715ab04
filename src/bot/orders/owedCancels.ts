/**
 * Cancels the bot owes: orders that should be gone (a halted instrument's, every order at the stop)
 * while their cancel has not gone through. The dead-man switch reads it and does not push its
 * deadline forward while anything is owed, so the venue cancels those orders at the deadline already
 * set at the latest, however long our own cancels wait (a fleet out of shared budget, a venue
 * refusing them; issue 34).
 *
 * A scope (one instrument, or `all`) is owed from the first cancel-all for it until one succeeds; a
 * plan submitted for an instrument again (it resumed quoting and manages its orders) settles it too.
 * When the switch fires with debts outstanding, the venue cancelled every order: the switch
 * discharges the debts begun before its deadline.
 */
import type { Clock } from '../../clock.ts'
import { createSignal, type Signal } from '../shared/signal.ts'

export type OwedScope = number | 'all'

export interface OwedCancels {
  /** When the oldest outstanding debt began (clock ms), undefined when nothing is owed. */
  since(): number | undefined
  /** The scopes owed now (instrument ids, or `all`). */
  scopes(): readonly OwedScope[]
  /** Fires each time the last debt is settled (nothing owed any more). */
  readonly settled: Pick<Signal<void>, 'subscribe'>
  /** The venue's switch fired at `at` (clock ms): debts begun before it are discharged. */
  dischargeBefore(at: number): void
}

/** The ledger's writer side: the order gateway. */
export interface OwedCancelLedger extends OwedCancels {
  owe(scope: OwedScope): void
  paid(scope: OwedScope): void
}

export function createOwedCancels(clock: Pick<Clock, 'now'>): OwedCancelLedger {
  const owed = new Map<OwedScope, number>()
  const settled = createSignal<void>()
  const drop = (scope: OwedScope): void => {
    if (owed.delete(scope) && owed.size === 0) settled.emit(undefined)
  }
  return {
    since() {
      let first: number | undefined
      for (const at of owed.values()) if (first === undefined || at < first) first = at
      return first
    },
    scopes: () => [...owed.keys()],
    settled,
    owe(scope) {
      if (!owed.has(scope)) owed.set(scope, clock.now())
    },
    paid(scope) {
      // A whole-account cancel settles every instrument's debt.
      if (scope === 'all') for (const s of [...owed.keys()]) drop(s)
      else drop(scope)
    },
    dischargeBefore(at) {
      for (const [scope, since] of [...owed]) if (since <= at) drop(scope)
    },
  }
}

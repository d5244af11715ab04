/** The state value of an instrument actor as every reader sees it (the work of `active` added from context). */
import type { InstrumentContext } from './context.ts'

/** A state value as xstate gives it (a string, or nested objects for compound and parallel states). */
export type StateValueOf = string | { readonly [key: string]: StateValueOf | undefined }

/**
 * The state value with the work of `active`: `repricing` while a plan is in flight, else `quoting`
 * (it is context: see the header), as `/status`, the metrics, the timeline and the journal name it
 * (`active.normal.repricing`). Every reader of an instrument's state path reads it through this.
 */
export function instrumentStateValue(snapshot: {
  value: StateValueOf
  context: Pick<InstrumentContext, 'planInFlight'>
}): StateValueOf {
  const { value } = snapshot
  if (typeof value === 'string') return value
  const active = value.active
  if (active === undefined || typeof active === 'string') return value
  const work = snapshot.context.planInFlight !== undefined ? 'repricing' : (active.work ?? 'quoting')
  return { ...value, active: { ...active, work } }
}

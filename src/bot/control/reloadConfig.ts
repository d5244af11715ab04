/**
 * `perpbot reload`'s changes, from the configuration read again: each traded instrument kept (its new
 * strategy or parameters applied at once, or unchanged), removed (held halted, its orders cancelled)
 * or back; each instrument added started through the admission joint (venue listing, open-order room,
 * leverage, a new actor); the protections' new limits. One line per instrument says which; an added
 * instrument refused is counted (the reply is then not ok, as a flatten that could not close one).
 * Idempotent: the same file twice changes nothing the second time.
 */
import type { Settings } from '../../settings/schema.ts'
import type { ResolvedStrategy } from '../../strategy/registry.ts'
import type { ResolvedInstrumentConfig } from '../actors/instrumentActors.ts'
import type { Holds } from './holds.ts'
import type { Protections } from './protections.ts'

/**
 * The joint to the part that starts an instrument a reload adds (startup/instrumentAdmission.ts):
 * each added instrument trading, or refused with the reason and nothing changed.
 */
export interface InstrumentAdmitter {
  admit(
    settings: Settings,
    added: readonly ResolvedInstrumentConfig[],
  ): Promise<readonly { symbol: string; admitted: boolean; line: string }[]>
}

export interface ReloadTargets {
  actors: {
    /** The traded instruments, live (an admitted one is in it from then on). */
    readonly instruments: readonly { id: number; symbol: string }[]
    /** A traded instrument's new strategy: its actor's dependencies, its inputs (statistics) with them. */
    reconfigure(id: number, strategy: ResolvedStrategy, settings: Settings): void
  }
  holds: Holds
  protections: Pick<Protections, 'reconfigure'>
  admission: InstrumentAdmitter
}

/** What a strategy's actor is built from: a reload with the same key changes nothing. */
export function strategyKey(strategy: ResolvedStrategy, settings: Settings): string {
  return JSON.stringify([strategy.name, strategy.params, settings.quoting, settings.risk])
}

/**
 * Applies a configuration read again. `applied` holds each traded symbol's `strategyKey` (the start's,
 * then each reload's) and is updated.
 */
export async function applyReload(
  t: ReloadTargets,
  next: { settings: Settings; strategies: readonly ResolvedInstrumentConfig[] },
  applied: Map<string, string>,
): Promise<{ changed: boolean; lines: string[]; refused: number }> {
  const lines: string[] = []
  let changed = false
  let refused = 0
  const wanted = new Map(next.strategies.map((s) => [s.symbol, s]))
  // A snapshot: the admissions below append to the live list.
  for (const i of [...t.actors.instruments]) {
    const s = wanted.get(i.symbol)
    if (s === undefined) {
      if (t.holds.set('removed', [i.id], 'removed from the configuration (reload)').length > 0) {
        changed = true
        lines.push(`${i.symbol}: removed: halted, orders cancelled`)
      }
      continue
    }
    const back = t.holds.set('removed', [i.id], undefined).length > 0
    const key = strategyKey(s.strategy, next.settings)
    const same = applied.get(i.symbol) === key
    if (!same) {
      t.actors.reconfigure(i.id, s.strategy, next.settings)
      applied.set(i.symbol, key)
    }
    changed ||= back || !same
    const what = same ? 'unchanged' : `${s.strategy.name} with the file's parameters`
    lines.push(
      back ? `${i.symbol}: back in the configuration: quoting again (${what})` : `${i.symbol}: ${what}`,
    )
  }
  const traded = new Set(t.actors.instruments.map((i) => i.symbol))
  const added = next.strategies.filter((s) => !traded.has(s.symbol))
  for (const a of await t.admission.admit(next.settings, added)) {
    lines.push(a.line)
    if (!a.admitted) {
      refused += 1
      continue
    }
    changed = true
    const s = wanted.get(a.symbol)
    if (s !== undefined) applied.set(a.symbol, strategyKey(s.strategy, next.settings))
  }
  if (t.protections.reconfigure(next.settings.protections)) {
    changed = true
    lines.push('protections: the new limits apply from the next check (active halts stay until resume)')
  }
  return { changed, lines, refused }
}

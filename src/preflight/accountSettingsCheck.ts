/**
 * Doctor lines for the account's settings: leverage and margin mode per instrument (what the account
 * has against what the config wants; the bot's start applies the difference), and the dead-man
 * switch's status on the venue (armed deadline, triggers used of the day's limit, next reset).
 */
import { describeChange, describeSetting, leverageChanges } from '../perps/leverageWanted.ts'
import type { AutoCancelStatus, InstrumentConfig } from '../perps/schemas/accountState.ts'
import type { Settings } from '../settings/schema.ts'

type Line = [string, 'ok' | 'warn' | 'fail' | 'skip', string]

/** Leverage and margin mode: ok when the account already has what the config asks, warn when the start will change it. */
export function leverageLine(
  settings: Pick<Settings, 'instruments'>,
  ids: ReadonlyMap<string, number>,
  have: readonly InstrumentConfig[],
): Line {
  const wanted = settings.instruments.flatMap((i) => {
    const id = ids.get(i.symbol)
    if (!i.enabled || id === undefined) return []
    return [{ symbol: i.symbol, instrumentId: id, leverage: i.leverage, marginMode: i.marginMode }]
  })
  const byId = new Map(have.map((c) => [c.instrument_id, c]))
  const current = wanted
    .map((w) => {
      const h = byId.get(w.instrumentId)
      return `${w.symbol} ${h === undefined ? 'not set' : describeSetting(h)}`
    })
    .join(', ')
  const configured = wanted.filter((w) => w.leverage !== undefined || w.marginMode !== undefined)
  if (configured.length === 0)
    return [
      'leverage and margin mode',
      'ok',
      `${current || 'no instruments'} (not configured: left as the account has it)`,
    ]
  const changes = leverageChanges(configured, have)
  if (changes.length === 0) return ['leverage and margin mode', 'ok', `as configured: ${current}`]
  return [
    'leverage and margin mode',
    'warn',
    `the account differs from the config; the bot's start sets ${changes.map(describeChange).join(', ')}`,
  ]
}

/** Triggers left in the day at or below which the line (and the running bot) warns. */
const TRIGGERS_WARN_LEFT = 2

/** The switch's status: armed deadline (or not armed), triggers used of the daily limit, next reset. */
export function deadManLine(settings: Pick<Settings, 'ops'>, s: AutoCancelStatus, now: number): Line {
  const armed = s.deadline > 0 && s.deadline > now
  const left = s.daily_limit - s.triggered
  const reset = new Date(s.next_reset).toISOString()
  const detail = `${armed ? `armed, cancels everything in ${((s.deadline - now) / 1000).toFixed(1)} s` : 'not armed'}; triggered ${s.triggered} of ${s.daily_limit} today, next reset ${reset}; the bot ${settings.ops.deadManSwitch.enabled ? `arms it ${settings.ops.deadManSwitch.deadlineMs / 1000} s ahead` : 'does not use it (ops.deadManSwitch.enabled: false)'}`
  if (settings.ops.deadManSwitch.enabled && left <= 0)
    return ['dead-man switch', 'fail', `${detail}: no trigger left today, the venue will refuse to arm it`]
  if (settings.ops.deadManSwitch.enabled && left <= TRIGGERS_WARN_LEFT)
    return ['dead-man switch', 'warn', `${detail}: only ${left} trigger(s) left today`]
  return ['dead-man switch', 'ok', detail]
}

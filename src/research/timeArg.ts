/** Time arguments of the research commands: an ISO time, `now`, or a duration back from now (`90s`, `6h`, `2d`). */
import { InputValidationError } from '../errors.ts'

const UNIT_MS: Readonly<Record<string, number>> = {
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
}

/** The latest and earliest times a research window may name (Date's own range is wider). */
const LATEST_MS = Date.UTC(9999, 11, 31)
const EARLIEST_MS = 0

export function parseTimeArg(s: string, now: number, name: string): number {
  const v = s.trim()
  if (v === 'now') return now
  const d = /^(\d+(?:\.\d+)?)([smhdw])$/.exec(v)
  if (d) {
    const t = now - Math.round(Number(d[1]) * (UNIT_MS[d[2] ?? 's'] ?? 1_000))
    if (Number.isSafeInteger(t) && t >= EARLIEST_MS) return t
    throw new InputValidationError(`${name} '${s}' reaches back before 1970`)
  }
  if (/^\d{4}-\d{2}-\d{2}/.test(v)) {
    const t = Date.parse(/[zZ]|[+-]\d{2}:?\d{2}$/.test(v) || v.length === 10 ? v : `${v}Z`)
    if (Number.isFinite(t) && t >= EARLIEST_MS && t <= LATEST_MS) return t
  }
  throw new InputValidationError(
    `${name} must be an ISO time (2026-01-05T00:00Z), 'now', or a duration back from now (6h, 2d), got '${s}'`,
  )
}

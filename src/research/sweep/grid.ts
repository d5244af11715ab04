/** Sweep grids: `--grid key=v1,v2,…` repeated, expanded to every combination in a fixed order. */
import { InputValidationError } from '../../errors.ts'

export interface GridAxis {
  key: string
  values: readonly (string | number)[]
}

export type GridPoint = Readonly<Record<string, string | number>>

/** `halfSpreadBps=5,10,20` → an axis; numbers stay numbers, anything else a string. */
export function parseAxis(arg: string): GridAxis {
  const eq = arg.indexOf('=')
  const key = arg.slice(0, eq).trim()
  if (eq <= 0 || key === '') throw new InputValidationError(`--grid expects key=v1,v2,…, got '${arg}'`)
  // A parameter name, never an object's own machinery (`__proto__` would be dropped silently).
  if (!/^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(key) || RESERVED.has(key))
    throw new InputValidationError(
      `--grid ${JSON.stringify(key.slice(0, 64))} is not a parameter name (letters, digits, _)`,
    )
  const values = arg
    .slice(eq + 1)
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '')
    .map((v) => (/^-?\d+(\.\d+)?$/.test(v) && Number.isFinite(Number(v)) ? Number(v) : v))
  if (values.length === 0) throw new InputValidationError(`--grid ${key} has no values`)
  return { key, values }
}

/** Names no parameter may have. */
const RESERVED: ReadonlySet<string> = new Set([
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
])

/** Most grid points one sweep runs (every combination is one backtest). */
export const MAX_GRID_POINTS = 10_000

/** Every combination, the first axis varying slowest. */
export function expandGrid(axes: readonly GridAxis[]): GridPoint[] {
  const keys = new Set<string>()
  let count = 1
  for (const a of axes) {
    if (keys.has(a.key)) throw new InputValidationError(`--grid ${a.key} is given twice`)
    keys.add(a.key)
    count *= a.values.length
  }
  if (count > MAX_GRID_POINTS)
    throw new InputValidationError(`--grid gives ${count} combinations; at most ${MAX_GRID_POINTS} per sweep`)
  let points: Record<string, string | number>[] = [{}]
  for (const a of axes) points = points.flatMap((p) => a.values.map((v) => ({ ...p, [a.key]: v })))
  return points
}

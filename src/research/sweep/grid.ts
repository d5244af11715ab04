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
  // A parameter name, never an object's own machinery (`__proto__`, `constructor`).
  if (!/^[A-Za-z][A-Za-z0-9]*$/.test(key) || key === 'constructor')
    throw new InputValidationError(`--grid key '${key}' is not a parameter name (letters and digits)`)
  const values = arg
    .slice(eq + 1)
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '')
    .map((v) => (/^-?\d+(\.\d+)?$/.test(v) && Number.isFinite(Number(v)) ? Number(v) : v))
  if (values.length === 0) throw new InputValidationError(`--grid ${key} has no values`)
  return { key, values }
}

/** Every combination, the first axis varying slowest. */
export function expandGrid(axes: readonly GridAxis[]): GridPoint[] {
  const keys = new Set<string>()
  for (const a of axes) {
    if (keys.has(a.key)) throw new InputValidationError(`--grid ${a.key} is given twice`)
    keys.add(a.key)
  }
  let points: Record<string, string | number>[] = [{}]
  for (const a of axes) points = points.flatMap((p) => a.values.map((v) => ({ ...p, [a.key]: v })))
  return points
}

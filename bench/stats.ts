/** Small helpers shared by the benches: percentiles, formatting, flags, and the machine-readable result line. */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** Nearest-rank percentile of an ascending array (NaN when empty). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] as number
}

export interface Distribution {
  n: number
  p50: number
  p90: number
  p99: number
  max: number
}

export function distribution(samples: readonly number[]): Distribution {
  const s = [...samples].sort((a, b) => a - b)
  return {
    n: s.length,
    p50: percentile(s, 50),
    p90: percentile(s, 90),
    p99: percentile(s, 99),
    max: s[s.length - 1] ?? Number.NaN,
  }
}

/** Milliseconds, 2 decimals; a figure no sample gave (NaN, which JSON carries as null) reads n/a. */
export const ms = (x: number, width = 8): string =>
  (Number.isFinite(x) ? x.toFixed(2) : 'n/a').padStart(width)

/** Bytes in mebibytes, labelled MiB: targets in MB (10^6 bytes), such as issue 36's rss ≤ 200 MB, are not the same unit. */
export const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`

/** `--name value` / `--name=value` / `--flag` from argv. */
export function flag(name: string, argv: readonly string[] = process.argv.slice(2)): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string
    if (a === `--${name}`) {
      const next = argv[i + 1]
      return next === undefined || next.startsWith('--') ? 'true' : next
    }
    if (a.startsWith(`--${name}=`)) return a.slice(name.length + 3)
  }
  return undefined
}

export function numberFlag(name: string, fallback: number): number {
  const v = flag(name)
  if (v === undefined) return fallback
  const n = Number(v)
  if (!Number.isFinite(n)) throw new Error(`--${name} must be a number, got ${v}`)
  return n
}

/** Milliseconds of `pauses` ([from, to] each) inside [from, to]: a slow move's time in collections. */
export function pausedMs(pauses: readonly (readonly [number, number])[], from: number, to: number): number {
  return pauses.reduce((sum, [a, b]) => sum + Math.max(0, Math.min(b, to) - Math.max(a, from)), 0)
}

/** Prefix of the one line a bench prints for `bench/run.ts` to collect. */
export const RESULT_PREFIX = 'BENCH_RESULT '

export function emitResult(result: unknown): void {
  console.log(`${RESULT_PREFIX}${JSON.stringify(result)}`)
}

export const sleepMs = (t: number): Promise<void> => new Promise((r) => setTimeout(r, t))

/**
 * `--help` / `-h`: prints the bench's own leading doc comment (its usage, one text for both) and exits
 * 0. Call it first in a bench's body, with `import.meta.url`, before its flags are read.
 */
export function exitWithHelpOnRequest(
  moduleUrl: string,
  argv: readonly string[] = process.argv.slice(2),
): void {
  if (!argv.includes('--help') && !argv.includes('-h')) return
  const text = readFileSync(fileURLToPath(moduleUrl), 'utf8')
  const doc = /^\/\*\*([\s\S]*?)\*\//.exec(text)?.[1] ?? ' no usage written'
  console.log(
    doc
      .split('\n')
      .map((l) => l.replace(/^\s*\* ?/, ''))
      .join('\n')
      .trim(),
  )
  process.exit(0)
}

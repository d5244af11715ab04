/**
 * A sweep split over machines (issue 39.5): a Kubernetes Indexed Job runs N pods, each with its
 * `JOB_COMPLETION_INDEX`; pod i runs the points whose index ≡ i (mod N) and writes them as one part
 * file; `perpbot sweep --merge DIR` reads every part, checks they belong to one sweep and cover every
 * point exactly once, and writes the same ranked CSV and page a single run would.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { InputValidationError } from '../../errors.ts'
import type { SweepResult } from './task.ts'

export const PART_FORMAT = 'perpbot-sweep-part/1'
/** A part file larger than this is not a sweep part (10,000 points of JSON are ~10 MB). */
const MAX_PART_BYTES = 256 * 1024 * 1024

/** Whether point `index` belongs to shard `shard` of `shards`. */
export const inShard = (index: number, shard: number, shards: number): boolean => index % shards === shard

export const partFileName = (shard: number, shards: number): string => `part-${shard}-of-${shards}.json`

/** What every part of one sweep must agree on (the merge refuses parts of different sweeps). */
export const SweepIdentity = z.strictObject({
  strategy: z.string(),
  objective: z.string(),
  data: z.string(),
  inSample: z.string(),
  outOfSample: z.string(),
  search: z.string(),
  total: z.number().int().positive(),
  shards: z.number().int().positive(),
  /** The search plan (grid axes and ranges), to rebuild the page's axes. */
  plan: z.unknown(),
})
export type SweepIdentity = z.infer<typeof SweepIdentity>

const metrics = z.looseObject({
  netPnl: z.number(),
  sharpe: z.number(),
  drawdown: z.number(),
  fills: z.number(),
  volume: z.number(),
  sortino: z.number(),
  calmar: z.number(),
  profitFactor: z.number(),
  markout60Bps: z.number(),
  moments: z.object({ sr: z.number(), samples: z.number(), skew: z.number(), kurtosis: z.number() }),
})
const result = z.object({
  index: z.number().int().nonnegative(),
  point: z.record(z.string(), z.union([z.string(), z.number()])),
  inSample: metrics,
  outOfSample: metrics,
  timing: z.object({ runMs: z.number(), cpuMs: z.number(), loadMs: z.number(), thread: z.number() }),
})
const PartFile = z.object({
  format: z.literal(PART_FORMAT),
  shard: z.number().int().nonnegative(),
  identity: SweepIdentity,
  results: z.array(result),
})
export type PartFile = z.infer<typeof PartFile>

export function partJson(shard: number, identity: SweepIdentity, results: readonly SweepResult[]): string {
  return `${JSON.stringify({ format: PART_FORMAT, shard, identity, results })}\n`
}

/**
 * Reads every `part-*-of-N.json` in `dir` and joins their results in point order.
 * @throws {@link InputValidationError} for a missing, repeated or foreign part, or a point missing.
 */
export function mergeParts(dir: string): { identity: SweepIdentity; results: SweepResult[] } {
  const names = readdirSync(dir).filter((n) => /^part-\d+-of-\d+\.json$/.test(n))
  if (names.length === 0) throw new InputValidationError(`no sweep parts (part-I-of-N.json) in ${dir}`)
  const parts: PartFile[] = names.map((n) => {
    const file = join(dir, n)
    const st = statSync(file)
    if (!st.isFile() || st.size > MAX_PART_BYTES)
      throw new InputValidationError(`${file} is not a sweep part (not a regular file, or too large)`)
    const parsed = PartFile.safeParse(JSON.parse(readFileSync(file, 'utf8')))
    if (!parsed.success) throw new InputValidationError(`${file} is not a ${PART_FORMAT} file`)
    return parsed.data
  })
  const first = parts[0]
  if (first === undefined) throw new InputValidationError(`no sweep parts (part-I-of-N.json) in ${dir}`)
  const id = JSON.stringify(first.identity)
  for (const [i, p] of parts.entries())
    if (JSON.stringify(p.identity) !== id)
      throw new InputValidationError(`${names[i]} belongs to another sweep than ${names[0]}`)
  const { shards, total } = first.identity
  const seen = new Set(parts.map((p) => p.shard))
  const missing = Array.from({ length: shards }, (_, i) => i).filter((i) => !seen.has(i))
  if (missing.length > 0 || parts.length !== shards)
    throw new InputValidationError(
      `the sweep has ${shards} shard(s); ${missing.length > 0 ? `missing: ${missing.join(', ')}` : 'a shard is there twice'}`,
    )
  const results = parts.flatMap((p) => p.results).sort((a, b) => a.index - b.index)
  if (results.length !== total || results.some((r, i) => r.index !== i))
    throw new InputValidationError(`the parts hold ${results.length} of the sweep's ${total} point(s)`)
  return { identity: first.identity, results }
}

/** `perpbot compare A.json B.json`: the page comparing two runs (files from `simulate --json`). */
import { readFileSync, statSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { compareHtml, RUN_SUMMARY_FORMAT, RunSummary } from '../../sim/simulate/runSummary.ts'
import { type CliContext, UsageError } from '../context.ts'

export const COMPARE_USAGE = `usage: perpbot compare A.json B.json [--out compare.html]
  The page comparing two runs: every figure of the simulate/backtest report (PnL, drawdown, markouts,
  spread captured, adverse selection, round trips, win rate, ratios) for A and B with B − A, green
  where B is better. Write the files with 'perpbot simulate ... --json FILE'.
  --out FILE   the page (default compare.html)`

/** A run summary file, checked: a regular file of at most 1 MB in the summary's format. */
function readSummary(file: string): RunSummary {
  let text: string
  try {
    const st = statSync(file)
    if (!st.isFile() || st.size > 1_048_576)
      throw new UsageError(`${file} is not a run summary (not a small regular file)`)
    text = readFileSync(file, 'utf8')
  } catch (e) {
    if (e instanceof UsageError) throw e
    throw new UsageError(`cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`)
  }
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch {
    throw new UsageError(`${file} is not JSON`)
  }
  const parsed = RunSummary.safeParse(raw)
  if (!parsed.success)
    throw new UsageError(`${file} is not a ${RUN_SUMMARY_FORMAT} file (write it with simulate --json)`)
  return parsed.data
}

export function compareCommand(ctx: CliContext): number {
  const { values, positionals } = parseArgs({
    args: [...ctx.argv],
    options: { out: { type: 'string', default: 'compare.html' }, help: { type: 'boolean', short: 'h' } },
    strict: true,
    allowPositionals: true,
  })
  if (values.help) {
    ctx.stdout(COMPARE_USAGE)
    return 0
  }
  if (positionals.length !== 2) throw new UsageError('compare takes two run summaries: A.json B.json')
  const [a, b] = positionals.map((p) => readSummary(resolve(p)))
  if (a === undefined || b === undefined)
    throw new UsageError('compare takes two run summaries: A.json B.json')
  const out = resolve(values.out)
  writeFileSync(out, compareHtml(a, b))
  ctx.stdout(
    `net PnL ${a.figures.netPnl.toFixed(2)} → ${b.figures.netPnl.toFixed(2)} ${a.currency}, fills ${a.figures.fills} → ${b.figures.fills}: ${out}`,
  )
  return 0
}

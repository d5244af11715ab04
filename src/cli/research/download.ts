/**
 * `perpbot download`: history (klines, trades, funding) from the embedded mock (default) or the venue
 * (`--live`) into a dataset folder (src/research/dataset/), resumable, with progress on stderr.
 */
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { InputValidationError } from '../../errors.ts'
import { isOneOf } from '../../guards.ts'
import { generateInstruments } from '../../mock/perps/instruments.ts'
import { DatasetError } from '../../research/dataset/format.ts'
import { DatasetStore } from '../../research/dataset/store.ts'
import { download, windowProblem } from '../../research/download/downloader.ts'
import { type LiveDownload, openLiveDownload } from '../../research/download/liveClient.ts'
import {
  isLiveKlineInterval,
  LIVE_KLINE_INTERVALS,
  VenueReadError,
} from '../../research/download/liveSource.ts'
import { DEFAULT_MOCK_INSTRUMENTS, MockHistorySource } from '../../research/download/mockSource.ts'
import { HISTORY_KINDS, type HistorySource, isHistoryKind } from '../../research/download/source.ts'
import { createCountProgress } from '../../research/progress.ts'
import { parseTimeArg } from '../../research/timeArg.ts'
import { type CliContext, UsageError } from '../context.ts'

export const DOWNLOAD_USAGE = `usage: perpbot download --out DIR [--instruments A,B|all] [--from T] [--to T]
                        [--what klines,trades,funding] [--live URL [--interval 1m] [--budget 500]]
                        [--mock-instruments N] [--seed S]
  Fetches history into a dataset folder (gzip NDJSON per kind, instrument and hour; manifest.json).
  Resumable: run it again and it fetches only the chunks the folder lacks.
  --out DIR             dataset folder (created when missing)
  --instruments LIST    symbols, comma-separated, or 'all' (default all)
  --from T / --to T     ISO time, 'now', or a duration back from now (6h, 2d); default 24h .. now
  --what LIST           any of ${HISTORY_KINDS.join(', ')} (default all three)
  --live URL            read the venue's REST API at URL (https://api.perpetuals.polymarket.com)
                        instead of the embedded mock; public reads, no credentials needed
  --interval I          candle interval of --live klines: ${Object.keys(LIVE_KLINE_INTERVALS).join(', ')} (default 1m;
                        the embedded mock's data is per second)
  --budget N            request weight per minute --live may spend, of the venue's 1,000 per IP
                        (default 500: a bot on the same IP keeps the rest)
  --mock-instruments N  instruments of the embedded mock (default 10); --seed S its seed (default 1)
  Progress and the estimate go to stderr; a summary to stdout. Exit 2 on bad input.`

export async function downloadCommand(ctx: CliContext): Promise<number> {
  const { values } = parseArgs({
    args: [...ctx.argv],
    options: {
      out: { type: 'string' },
      instruments: { type: 'string', default: 'all' },
      from: { type: 'string', default: '24h' },
      to: { type: 'string', default: 'now' },
      what: { type: 'string', default: HISTORY_KINDS.join(',') },
      live: { type: 'string' },
      interval: { type: 'string', default: '1m' },
      budget: { type: 'string', default: '500' },
      'mock-instruments': { type: 'string', default: String(DEFAULT_MOCK_INSTRUMENTS) },
      seed: { type: 'string', default: '1' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  })
  if (values.help) {
    ctx.stdout(DOWNLOAD_USAGE)
    return 0
  }
  if (values.out === undefined || values.out.trim() === '') throw new UsageError('--out DIR is required')
  const now = Date.now()
  let from: number
  let to: number
  try {
    from = parseTimeArg(values.from, now, '--from')
    to = parseTimeArg(values.to, now, '--to')
  } catch (e) {
    throw new UsageError(e instanceof InputValidationError ? e.shortMessage : String(e))
  }
  const refused = windowProblem(from, to, now)
  if (refused !== undefined) throw new UsageError(refused)
  const kinds = values.what.split(',').map((k) => k.trim())
  const bad = kinds.filter((k) => !isOneOf(HISTORY_KINDS, k))
  if (bad.length > 0)
    throw new UsageError(`--what: unknown kind(s) ${bad.join(', ')} (known: ${HISTORY_KINDS.join(', ')})`)
  const n = Number(values['mock-instruments'])
  const seed = Number(values.seed)
  if (!Number.isInteger(n) || n < 1 || n > 500)
    throw new UsageError('--mock-instruments must be an integer from 1 to 500')
  if (!Number.isSafeInteger(seed) || seed < 0) throw new UsageError('--seed must be a non-negative integer')
  const interval = values.interval
  if (!isLiveKlineInterval(interval))
    throw new UsageError(`--interval must be one of ${Object.keys(LIVE_KLINE_INTERVALS).join(', ')}`)
  const budget = Number(values.budget)
  if (!Number.isInteger(budget) || budget < 10 || budget > 1_000)
    throw new UsageError('--budget must be an integer from 10 to 1000 (request weight per minute)')
  if (values.live !== undefined && !/^https?:\/\/[^/]/.test(values.live))
    throw new UsageError(`--live must be the venue's http(s) address, got '${values.live}'`)
  const live: LiveDownload | undefined =
    values.live === undefined
      ? undefined
      : openLiveDownload({ baseUrl: values.live, interval, budgetPerMinute: budget, signal: ctx.signal })
  const source: HistorySource = live?.source ?? new MockHistorySource(generateInstruments(n, seed), seed)
  const out = resolve(values.out)
  let saved = 0
  try {
    const all = (await source.instruments()).map((i) => i.symbol)
    const symbols = values.instruments === 'all' ? all : values.instruments.split(',').map((s) => s.trim())
    const store = DatasetStore.openOrCreate(out, source.name, source.klineIntervalMs)
    const tty = process.stderr.isTTY === true
    const write = tty
      ? (t: string) => void process.stderr.write(t)
      : (t: string) => ctx.stderr(t.replace(/\n$/, ''))
    const progress = createCountProgress({ write, isTty: tty, now: () => performance.now(), unit: 'chunks' })
    const started = performance.now()
    const p = await download({
      source,
      store,
      plan: { symbols, kinds: kinds.filter(isHistoryKind), from, to },
      onProgress: (x) => {
        saved = x.chunksDone - x.skipped
        progress.update(x.chunksDone, x.chunksTotal)
      },
      signal: ctx.signal,
    })
    progress.done(p.chunksDone, p.chunksTotal)
    if (ctx.signal.aborted)
      ctx.stderr(
        `perpbot download: interrupted; the chunks saved stay in ${out} (run it again to fetch the rest)`,
      )
    ctx.stdout(
      `downloaded ${p.chunksDone - p.skipped} chunk(s) (${p.rows} rows, ${(p.bytes / 1e6).toFixed(2)} MB, ${p.pages} pages) ` +
        `and kept ${p.skipped} already present, in ${((performance.now() - started) / 1000).toFixed(1)} s` +
        `${live ? ` (request weight ${live.weightSpent()})` : ''}: ${out}`,
    )
    return ctx.signal.aborted ? 1 : 0
  } catch (e) {
    if (e instanceof VenueReadError && ctx.signal.aborted) {
      ctx.stderr(`perpbot download: interrupted; ${saved} chunk(s) saved this run stay in ${out}`)
      return 1
    }
    if (e instanceof VenueReadError) {
      ctx.stderr(
        `perpbot download: ${e.message}\n  ${saved} chunk(s) saved this run stay in ${out}; run the same command again to fetch only what is missing`,
      )
      return 2
    }
    if (e instanceof DatasetError) {
      ctx.stderr(`perpbot download: ${e.message}`)
      return 2
    }
    throw e
  } finally {
    await live?.close()
  }
}

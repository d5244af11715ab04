/**
 * `perpbot record`: the public stream (tickers, best bid/offer, trades, book snapshots)
 * written to a dataset with receive times, rotated hourly, bounded on disk (src/research/record/).
 * Default target: the embedded mock on 127.0.0.1 (its clock, `--speed` times real time).
 */
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { systemClock } from '../../clock.ts'
import { InputValidationError } from '../../errors.ts'
import { generateInstruments } from '../../mock/perps/instruments.ts'
import { startMockServer } from '../../mock/server.ts'
import { DatasetError, type DatasetInstrument } from '../../research/dataset/format.ts'
import { DEFAULT_MOCK_INSTRUMENTS, instrumentOfSpec } from '../../research/download/mockSource.ts'
import { startStreamRecorder } from '../../research/record/streamRecorder.ts'
import { venueInstruments } from '../../research/record/venueInstruments.ts'
import { type CliContext, UsageError } from '../context.ts'

export const RECORD_USAGE = `usage: perpbot record --out DIR [--duration D] [--instruments A,B|all] [--max-mb N]
                      [--url WS_URL --rest HTTP_URL] [--speed F] [--seed S]
  Records the public stream into a dataset folder (tickers, best bid/offer, trades, and book
  snapshots of 10 levels a side at most once a second per instrument), each row with its receive
  time; one file per kind, instrument and hour, appended every --flush-s seconds (a crash loses at
  most that; compression runs off the event loop), the oldest hours deleted past --max-mb.
  Readable by 'perpbot simulate --data'.
  --out DIR          dataset folder
  --duration D       how long to record, wall time (90s, 10m, 2h; default 10m); Ctrl-C stops early
  --instruments L    symbols, comma-separated, or 'all' (default all)
  --max-mb N         disk bound of the folder's chunks, MB (default 1024)
  --flush-s N        seconds between flushes (default 60)
  --url WS_URL       the venue's WebSocket (with --rest for its instruments); default the embedded mock
  --speed F          the embedded mock's clock speed (default 10); --seed S its seed (default 1)
  --mock-instruments N  instruments of the embedded mock (default ${DEFAULT_MOCK_INSTRUMENTS}, as download)
  Progress goes to stderr; the counts, once, to stdout.`

const DURATION_RE = /^(\d+(?:\.\d+)?)(s|m|h)$/

export async function recordCommand(ctx: CliContext): Promise<number> {
  const { values } = parseArgs({
    args: [...ctx.argv],
    options: {
      out: { type: 'string' },
      duration: { type: 'string', default: '10m' },
      instruments: { type: 'string', default: 'all' },
      'max-mb': { type: 'string', default: '1024' },
      'flush-s': { type: 'string', default: '60' },
      url: { type: 'string' },
      rest: { type: 'string' },
      speed: { type: 'string', default: '10' },
      seed: { type: 'string', default: '1' },
      'mock-instruments': { type: 'string', default: String(DEFAULT_MOCK_INSTRUMENTS) },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  })
  if (values.help) {
    ctx.stdout(RECORD_USAGE)
    return 0
  }
  if (values.out === undefined || values.out.trim() === '') throw new UsageError('--out DIR is required')
  const d = DURATION_RE.exec(values.duration)
  if (!d) throw new UsageError(`--duration must look like 90s, 10m or 2h, got '${values.duration}'`)
  const durationMs = Number(d[1]) * (d[2] === 's' ? 1_000 : d[2] === 'm' ? 60_000 : 3_600_000)
  const maxMb = Number(values['max-mb'])
  const flushS = Number(values['flush-s'])
  const speed = Number(values.speed)
  const seed = Number(values.seed)
  if (!(maxMb > 0)) throw new UsageError('--max-mb must be a positive number')
  if (!(flushS >= 1)) throw new UsageError('--flush-s must be at least 1')
  if (!(speed >= 1 && speed <= 1_000)) throw new UsageError('--speed must be from 1 to 1000')
  if (!Number.isSafeInteger(seed) || seed < 0) throw new UsageError('--seed must be a non-negative integer')
  const mockInstruments = Number(values['mock-instruments'])
  if (!Number.isInteger(mockInstruments) || mockInstruments < 1 || mockInstruments > 500)
    throw new UsageError('--mock-instruments must be an integer from 1 to 500')
  if ((values.url === undefined) !== (values.rest === undefined))
    throw new UsageError('--url and --rest go together')

  const mock =
    values.url === undefined
      ? await startMockServer({
          port: 0,
          seed,
          clock: 'accelerated',
          speed,
          // The same instruments `download` reads from its mock (one seed, one list).
          exchange: { instruments: generateInstruments(mockInstruments, seed) },
        })
      : undefined
  try {
    const clock = mock?.clock ?? systemClock
    const all: DatasetInstrument[] = mock
      ? mock.exchange.instrumentSpecs().map(instrumentOfSpec)
      : await venueInstruments(values.rest ?? '')
    const symbols =
      values.instruments === 'all'
        ? all.map((i) => i.symbol)
        : values.instruments.split(',').map((s) => s.trim())
    const unknown = symbols.filter((s) => !all.some((i) => i.symbol === s))
    if (unknown.length > 0)
      throw new UsageError(
        `unknown instrument(s) ${unknown.join(', ')} (known: ${all.map((i) => i.symbol).join(', ')})`,
      )
    const instruments = all.filter((i) => symbols.includes(i.symbol))
    const url = mock?.wsUrl ?? values.url ?? ''
    const recorder = startStreamRecorder({
      url,
      dir: resolve(values.out),
      source: mock ? `record:mock:seed=${seed}` : `record:${url}`,
      instruments,
      clock,
      maxBytes: maxMb * 1e6,
      flushMs: flushS * 1_000,
      // The counts go once, in the summary on stdout; a flush only says it happened.
      onFlush: () =>
        ctx.stderr(`flushed at ${new Date(clock.now()).toISOString()} (mock clock when recording the mock)`),
      onError: (m) => ctx.stderr(`perpbot record: ${m}`),
    })
    ctx.stderr(
      `recording ${instruments.length} instrument(s) from ${mock ? `the embedded mock (${speed}× real time)` : url} for ${values.duration} into ${recorder.dir}`,
    )
    await new Promise<void>((done) => {
      const timer = setTimeout(done, durationMs)
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer)
        done()
      })
    })
    const r = await recorder.stop()
    ctx.stdout(
      `recorded ${r.rows} rows (${(r.bytes / 1e6).toFixed(2)} MB on disk${r.dropped > 0 ? `, ${r.dropped} oldest chunk(s) deleted for --max-mb` : ''}): ${recorder.dir}`,
    )
    return 0
  } catch (e) {
    if (e instanceof DatasetError || e instanceof InputValidationError) {
      ctx.stderr(`perpbot record: ${e.message}`)
      return 2
    }
    throw e
  } finally {
    await mock?.close()
  }
}

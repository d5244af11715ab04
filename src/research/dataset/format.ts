/**
 * The dataset format (docs/research.md): a folder with `manifest.json` and one gzip-compressed NDJSON
 * file per kind, instrument and UTC hour, `{kind}/{SYMBOL}/{YYYY-MM-DDTHH}.ndjson.gz`. Rows use terse
 * keys and keep prices and quantities as the venue's decimal strings; times are Unix ms. The manifest
 * lists every complete chunk (a chunk not in it did not finish: downloads resume from there).
 */
import { z } from 'zod'
import { BotError } from '../../errors.ts'
import { isOneOf } from '../../guards.ts'

export const DATASET_FORMAT = 'perpbot-dataset/1'
export const HOUR_MS = 3_600_000
export const DATA_KINDS = ['klines', 'trades', 'funding', 'tickers', 'bbo', 'book'] as const
export type DataKind = (typeof DATA_KINDS)[number]
export function isDataKind(v: string): v is DataKind {
  return isOneOf(DATA_KINDS, v)
}

const dec = z.string().regex(/^-?\d+(\.\d+)?$/)

/** A kline stamped at its open; `n` prints. */
export const klineRowSchema = z.object({
  t: z.number().int(),
  o: dec,
  h: dec,
  l: dec,
  c: dec,
  v: dec,
  n: z.number().int().nonnegative(),
})
/** A public trade; `s` is the taker's side when the source says it. */
export const tradeRowSchema = z.object({
  t: z.number().int(),
  p: dec,
  q: dec,
  s: z.enum(['long', 'short']).optional(),
})
/** A funding settlement at `t`, rate as a decimal fraction. */
export const fundingRowSchema = z.object({ t: z.number().int(), r: dec })
/** Index and mark as the stream pushed them, with receive time `t` and the venue's `ts` when known. */
export const tickerRowSchema = z.object({
  t: z.number().int(),
  ts: z.number().int().optional(),
  i: dec,
  m: dec,
  r: dec.optional(),
})
export const bboRowSchema = z.object({
  t: z.number().int(),
  bp: dec,
  bq: dec,
  ap: dec,
  aq: dec,
})

/** `[price, quantity]` as the venue's decimal strings. */
const bookLevel = z.tuple([dec, dec])
/**
 * A book snapshot as the stream pushed it, with receive time `t`: bids best first (`b`), asks best
 * first (`a`), cut to the recorder's depth.
 */
export const bookRowSchema = z.object({
  t: z.number().int(),
  b: z.array(bookLevel),
  a: z.array(bookLevel),
})

export type KlineRow = z.infer<typeof klineRowSchema>
export type TradeRow = z.infer<typeof tradeRowSchema>
export type FundingRow = z.infer<typeof fundingRowSchema>
export type TickerRow = z.infer<typeof tickerRowSchema>
export type BboRow = z.infer<typeof bboRowSchema>
export type BookRow = z.infer<typeof bookRowSchema>
export interface RowOf {
  klines: KlineRow
  trades: TradeRow
  funding: FundingRow
  tickers: TickerRow
  bbo: BboRow
  book: BookRow
}
export const ROW_SCHEMAS: { readonly [K in DataKind]: z.ZodType<RowOf[K]> } = {
  klines: klineRowSchema,
  trades: tradeRowSchema,
  funding: fundingRowSchema,
  tickers: tickerRowSchema,
  bbo: bboRowSchema,
  book: bookRowSchema,
}

const DEC_RE = /^-?\d+(\.\d+)?$/

/**
 * Fast row checks for the read path (the zod schemas above, by hand: a day of 10 instruments is two
 * million rows, and zod cost most of the read). A row is the parsed JSON when every field checks.
 */
type Check = (r: Record<string, unknown>) => string | undefined
const isInt = (v: unknown): boolean => typeof v === 'number' && Number.isInteger(v)
const isDec = (v: unknown): boolean => typeof v === 'string' && DEC_RE.test(v)
const need =
  (ints: readonly string[], decs: readonly string[], optDecs: readonly string[] = [], extra?: Check): Check =>
  (r) => {
    for (const k of ints) if (!isInt(r[k])) return `${k} is not an integer`
    for (const k of decs) if (!isDec(r[k])) return `${k} is not a decimal string`
    for (const k of optDecs) if (r[k] !== undefined && !isDec(r[k])) return `${k} is not a decimal string`
    return extra?.(r)
  }
export const ROW_CHECKS: { readonly [K in DataKind]: Check } = {
  klines: need(['t', 'n'], ['o', 'h', 'l', 'c', 'v']),
  trades: need(['t'], ['p', 'q'], [], (r) =>
    r.s === undefined || r.s === 'long' || r.s === 'short' ? undefined : 's is not long or short',
  ),
  funding: need(['t'], ['r']),
  tickers: need(['t'], ['i', 'm'], ['r'], (r) =>
    r.ts === undefined || isInt(r.ts) ? undefined : 'ts is not an integer',
  ),
  bbo: need(['t'], ['bp', 'bq', 'ap', 'aq']),
  book: need([], [], [], (r) =>
    !isInt(r.t) ? 't is not an integer' : (levelsProblem(r.b, 'b') ?? levelsProblem(r.a, 'a')),
  ),
}

function levelsProblem(v: unknown, key: string): string | undefined {
  if (!Array.isArray(v)) return `${key} is not a list of levels`
  for (const l of v)
    if (!Array.isArray(l) || l.length !== 2 || !isDec(l[0]) || !isDec(l[1]))
      return `${key} holds a level that is not [price, quantity] decimal strings`
  return undefined
}

/** What replay needs of an instrument (the mock's instrument spec fields the venue also publishes). */
export const datasetInstrumentSchema = z.object({
  id: z.number().int(),
  symbol: z.string().min(1),
  baseAsset: z.string().min(1),
  priceDecimals: z.number().int().min(0).max(18),
  quantityDecimals: z.number().int().min(0).max(18),
  /** The whole spec as the source knew it (the mock's `InstrumentSpec`; the venue's instrument row). */
  spec: z.record(z.string(), z.unknown()),
})
export type DatasetInstrument = z.infer<typeof datasetInstrumentSchema>

/** A path a manifest may list: `{kind}/{symbol}/{YYYY-MM-DDTHH}.ndjson.gz`, no dot segment. */
export const CHUNK_PATH_RE =
  /^(klines|trades|funding|tickers|bbo|book)\/[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}\/\d{4}-\d{2}-\d{2}T\d{2}\.ndjson\.gz$/

export const chunkEntrySchema = z.object({
  kind: z.enum(DATA_KINDS),
  symbol: z.string(),
  /** Covered window [from, to) (ms); a chunk holds at most one UTC hour. */
  from: z.number().int(),
  to: z.number().int(),
  rows: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
})
export type ChunkEntry = z.infer<typeof chunkEntrySchema>

export const manifestSchema = z.object({
  format: z.literal(DATASET_FORMAT),
  /** `mock:seed=1`, `live:https://…`, `record:…`. */
  source: z.string(),
  klineIntervalMs: z.number().int().positive(),
  instruments: z.record(z.string(), datasetInstrumentSchema),
  /** By relative path, as `chunkPath` writes it (no `..`, no absolute path: containedFiles.ts). */
  chunks: z.record(
    z
      .string()
      .regex(CHUNK_PATH_RE, { error: 'not a chunk path ({kind}/{symbol}/{YYYY-MM-DDTHH}.ndjson.gz)' }),
    chunkEntrySchema,
  ),
})
export type Manifest = z.infer<typeof manifestSchema>

/** `{kind}/{SYMBOL}/{YYYY-MM-DDTHH}.ndjson.gz` for the hour holding `t`. */
export function chunkPath(kind: DataKind, symbol: string, t: number): string {
  const hour = new Date(Math.floor(t / HOUR_MS) * HOUR_MS).toISOString().slice(0, 13)
  return `${kind}/${symbol.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\./, '_')}/${hour}.ndjson.gz`
}

/** A dataset problem: which file or which range, and what to do. */
export class DatasetError extends BotError {
  override name = 'DatasetError'
}

/** A chunk that does not decompress or parse: named, so only it needs fetching again. */
export class CorruptChunkError extends DatasetError {
  override name = 'CorruptChunkError'
  readonly file: string
  constructor(file: string, why: string) {
    super(`corrupt dataset file ${file}: ${why} (run \`perpbot download\` again to fetch it anew)`)
    this.file = file
  }
}

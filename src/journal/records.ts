/**
 * What the journal keeps, as zod schemas (the single source of the record types). Amounts are the
 * venue's decimal strings, stored as text and summed exactly (src/decimal.ts); times are Unix ms.
 * Nothing secret belongs here: command items carry the order parameters and the venue's answer, never
 * signatures, keys or headers (`assertNoSecretKeys` refuses such keys before a row is queued).
 */
import { z } from 'zod'
import { isDecimalString } from '../decimal.ts'

const Decimal = z.string().refine(isDecimalString, { message: 'expected a decimal string' })
const Ms = z.number().int().nonnegative()
const Iid = z.number().int().nonnegative()

export const RunStart = z.strictObject({
  runId: z.string().min(1).max(64),
  startedAt: Ms,
  version: z.string().max(64),
  mode: z.enum(['dry-run', 'live', 'simulate', 'paper']),
  /** sha256 of the effective configuration (secrets are not part of it). */
  configHash: z.string().max(128),
  pid: z.number().int().nonnegative(),
})
export type RunStart = z.infer<typeof RunStart>

export const RunStop = z.strictObject({
  runId: z.string().min(1),
  stoppedAt: Ms,
  reason: z.string().max(200),
})
export type RunStop = z.infer<typeof RunStop>

/** One item of a command and the venue's answer for it (accepted with an order id, or its error). */
export const CommandItem = z.strictObject({
  /** create | cancel | modify | cancel-all | auto-cancel … */
  op: z.string().max(32),
  iid: Iid.optional(),
  coid: z.string().max(64).optional(),
  oid: z.number().int().nonnegative().optional(),
  side: z.string().max(8).optional(),
  price: Decimal.optional(),
  qty: Decimal.optional(),
  /** ok | rejected | unknown */
  answer: z.enum(['ok', 'rejected', 'unknown']),
  /** The venue's error code for a rejected item. */
  error: z.string().max(200).optional(),
})
export type CommandItem = z.infer<typeof CommandItem>

export const CommandRecord = z.strictObject({
  ts: Ms,
  /** The endpoint: createOrders, cancelOrders, modifyOrders, cancelAll, setAutoCancel. */
  kind: z.string().min(1).max(32),
  items: z.array(CommandItem).max(1_000),
  /** Whole-request outcome: ok (HTTP answer parsed), rejected (4xx/5xx), unknown (no answer). */
  outcome: z.enum(['ok', 'rejected', 'unknown']),
  error: z.string().max(200).optional(),
  /** How many items the command carried, when `items` is not given item by item. */
  itemCount: z.number().int().nonnegative().optional(),
  /** Request latency and weight; 0 when the joint that reports the command does not measure them. */
  latencyMs: z.number().nonnegative().default(0),
  weight: z.number().int().nonnegative().default(0),
  /** Which process sent it (a fleet has several); the journal's own by default. */
  pid: z.number().int().nonnegative().optional(),
})
export type CommandRecord = z.infer<typeof CommandRecord>

export const OrderEvent = z.strictObject({
  ts: Ms,
  iid: Iid,
  oid: z.number().int().nonnegative().optional(),
  coid: z.string().max(64).optional(),
  /** open | partially-filled | filled | cancelled | rejected | expired … as the venue names it. */
  state: z.string().min(1).max(32),
  price: Decimal.optional(),
  qty: Decimal.optional(),
  filled: Decimal.optional(),
})
export type OrderEvent = z.infer<typeof OrderEvent>

/** A fill, normalized (the perps client's keys may change; the bot adapts at one place). */
export const FillRecord = z.strictObject({
  tradeId: z.union([z.string().min(1), z.number().int()]).transform(String),
  orderId: z.number().int().nonnegative(),
  iid: Iid,
  side: z.string().max(8),
  price: Decimal,
  qty: Decimal,
  taker: z.boolean(),
  /** Paid; a maker rebate is negative. */
  fee: Decimal,
  feeAsset: z.string().max(16),
  /** Realized PnL the fill closed. */
  realizedPnl: Decimal,
  liquidation: z.boolean(),
  ts: Ms,
  coid: z.string().max(64).optional(),
})
export type FillRecord = z.infer<typeof FillRecord>
export type FillInput = z.input<typeof FillRecord>

export const FundingRecord = z.strictObject({
  /** The venue's row id when sent, else `iid:ts` (one charge per instrument per settlement). */
  key: z.string().min(1).max(64),
  iid: Iid,
  size: Decimal,
  rate: Decimal,
  asset: z.string().max(16),
  /** Paid; received is negative. */
  amount: Decimal,
  ts: Ms,
})
export type FundingRecord = z.infer<typeof FundingRecord>

export const TransferRecord = z.strictObject({
  kind: z.enum(['withdrawal', 'deposit']),
  /** The venue's id (withdraw_id, deposit hash): unique per kind; a later status updates the row. */
  id: z.string().min(1).max(80),
  asset: z.string().max(16),
  amount: Decimal,
  fee: Decimal,
  status: z.string().max(32),
  ts: Ms,
  updatedAt: Ms,
})
export type TransferRecord = z.infer<typeof TransferRecord>
export type TransferInput = z.input<typeof TransferRecord>

export const AlertRecord = z.strictObject({
  key: z.string().min(1).max(120),
  severity: z.enum(['info', 'warning', 'critical']),
  title: z.string().max(200),
  message: z.string().max(1_000),
  /** True for the message that closes the episode. */
  resolved: z.boolean(),
  at: Ms,
})
export type AlertRecord = z.infer<typeof AlertRecord>

/** The ledger's state of one instrument at a minute, and what the instrument was doing. */
export const PnlSnapshotRecord = z.strictObject({
  /** Start of the minute (Unix ms, a multiple of 60 000). */
  minute: Ms.refine((m) => m % 60_000 === 0, { message: 'must be the start of a minute' }),
  iid: Iid,
  position: Decimal,
  realizedPnl: Decimal,
  unrealizedPnl: Decimal,
  fees: Decimal,
  funding: Decimal,
  volume: Decimal,
  fills: z.number().int().nonnegative(),
  /** quoting | halted | reduce-only | … : time quoting and halted in the report. */
  mode: z.string().max(32),
  /** The opening inventory's change in value since the account's first run (apart from net). */
  inventoryPnl: Decimal.default('0'),
  /** Wall ms of the minute the sample stands for (the run's first and last minutes are partial). */
  spanMs: z.number().int().min(0).max(60_000).default(60_000),
})
export type PnlSnapshotRecord = z.infer<typeof PnlSnapshotRecord>

/** The account's net PnL at a moment (bot clock): one point of the curve the drawdown walks. */
export const EquityRecord = z.strictObject({ at: Ms, net: Decimal })
export type EquityRecord = z.infer<typeof EquityRecord>

/** The book's mid at one of our fills (horizon 0) or a horizon after it (fillMids.ts). */
export const FillMidRecord = z.strictObject({
  tradeId: z.string().min(1),
  orderId: z.number().int().nonnegative(),
  fillTs: Ms,
  horizonMs: z.number().int().min(0).max(3_600_000),
  mid: Decimal,
  at: Ms,
})
export type FillMidRecord = z.infer<typeof FillMidRecord>

/** A named piece of restart state (the alert episodes of the account watch, …), replacing the JSON files. */
export const StateRecord = z.strictObject({
  name: z.string().min(1).max(120),
  value: z.unknown(),
  at: Ms,
})
export type StateRecord = z.infer<typeof StateRecord>

const SECRET_KEY = /secret|private|signature|^sig$|password|token|authorization/i

/** Throws when a value holds a key that names a secret: the journal never stores one. */
export function assertNoSecretKeys(value: unknown, path = ''): void {
  if (Array.isArray(value)) {
    value.forEach((v, i) => {
      assertNoSecretKeys(v, `${path}[${i}]`)
    })
    return
  }
  if (value === null || typeof value !== 'object') return
  for (const [k, v] of Object.entries(value)) {
    if (SECRET_KEY.test(k))
      throw new Error(`refusing to journal a secret-like field ${path}${path ? '.' : ''}${k}`)
    assertNoSecretKeys(v, `${path}${path ? '.' : ''}${k}`)
  }
}

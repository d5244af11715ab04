/**
 * Op builders: one typed input gives BOTH the JSON body `op` and the positional `signedOp`, so the
 * two cannot diverge (protocol-notes a.2). The public builders validate formats before anything is
 * signed; the `*Unchecked` cores only map shapes and are what the verifier reuses on received bodies
 * (the venue, not the signature, judges values such as an empty batch or a zero price).
 */
import { InputValidationError } from '../../errors.ts'
import type { SignableValue, SignedOp } from './typedData.ts'

export type TimeInForce = 'gtc' | 'ioc' | 'fok'
export type TpSl = 'tp' | 'sl'
export type OrderGroup = 'order' | 'position'

export interface OrderTriggerInput {
  /** Trigger price, decimal string. */
  trp: string
  tpsl: TpSl
  /** Market execution on trigger; only `true` is ever sent (false = omitted). */
  market?: boolean | undefined
}

export interface CreateOrderInput {
  /** Instrument id, 0..4294967295. */
  iid: number
  buy: boolean
  /** Limit price, decimal string. Required for GTC; IOC/FOK may omit it (market-style). */
  p?: string | undefined
  /** Total quantity, decimal string. */
  qty: string
  tif?: TimeInForce | undefined
  /** Post-only; always sent, default false. */
  po?: boolean | undefined
  /** Reduce-only; only `true` is sent (false = omitted). */
  ro?: boolean | undefined
  /** Client order id, 32 lowercase hex chars; sent as `c`. */
  coid?: string | undefined
  trigger?: OrderTriggerInput | undefined
}

export interface CreateOrdersInput {
  orders: readonly CreateOrderInput[]
  /** TP/SL group scope. */
  grp?: OrderGroup | undefined
}

export interface CancelOrdersInput {
  oids: readonly number[]
}

export interface CancelAllInput {
  /** Limit to one instrument; omit for all. */
  iid?: number | undefined
}

export interface ModifyOrderInput {
  oid: number
  /** New price, decimal string. */
  p: string
  /** New total quantity, decimal string. */
  qty: string
}

export interface ModifyOrdersInput {
  orders: readonly ModifyOrderInput[]
}

// ---- JSON body shapes -------------------------------------------------------------------------

export interface OrderTriggerBody {
  tpsl: TpSl
  trp: string
  market?: true | undefined
}

export interface CreateOrderBody {
  iid: number
  buy: boolean
  po: boolean
  qty: string
  tif?: TimeInForce | undefined
  ro?: true | undefined
  p?: string | undefined
  c?: string | undefined
  tr?: OrderTriggerBody | undefined
}

export interface CreateOrdersOp {
  type: 'createOrders'
  args: CreateOrderBody[]
  grp?: OrderGroup | undefined
}

export interface CancelOrdersOp {
  type: 'cancelOrders'
  args: number[]
}

export interface CancelAllOp {
  type: 'cancelAll'
  args: { iid?: number | undefined }
}

export interface ModifyOrdersOp {
  type: 'modifyOrders'
  args: ModifyOrderInput[]
}

/** The venue's dead-man switch: `time` (Unix ms) arms it, 0 clears it. */
export interface AutoCancelOp {
  type: 'autoCancel'
  args: { time: number }
}

/** Cancel by client order id (`DELETE /v1/trade/orders-coid`). */
export interface CancelOrdersCoidOp {
  type: 'cancelOrdersCOID'
  args: string[]
}

/** Leverage and margin mode of one instrument (`PATCH /v1/trade/leverage`); key order as the client's body. */
export interface UpdateLeverageOp {
  type: 'updateLeverage'
  args: { cross: boolean; iid: number; lev: number }
}

/**
 * Isolated margin added (positive) or removed (negative) on one position (`PATCH /v1/trade/margin`);
 * the body's keys as every official version sends them: `{amt, iid}`.
 */
export interface UpdateMarginOp {
  type: 'updateMargin'
  args: { amt: string; iid: number }
}

export type PerpsOp =
  | CreateOrdersOp
  | CancelOrdersOp
  | CancelAllOp
  | ModifyOrdersOp
  | AutoCancelOp
  | CancelOrdersCoidOp
  | UpdateLeverageOp
  | UpdateMarginOp

/** A builder's output: what goes in the body and what is hashed. */
export interface BuiltOp<TOp extends { type: string } = PerpsOp> {
  op: TOp
  signedOp: SignedOp
}

// ---- public, validating builders --------------------------------------------------------------

/**
 * `createOrders`: signed `["createOrders", [[iid, buy, p?, qty, tif?, po, ro?, coid?, trigger?]...], grp?]`.
 * @throws {@link InputValidationError} listing every invalid field.
 */
export function buildCreateOrders(input: CreateOrdersInput): BuiltOp<CreateOrdersOp> {
  const problems: string[] = []
  if (input.orders.length === 0) problems.push('orders must not be empty')
  input.orders.forEach((o, i) => {
    const at = `orders[${i}]`
    checkInstrumentId(o.iid, `${at}.iid`, problems)
    if (typeof o.buy !== 'boolean') problems.push(`${at}.buy must be a boolean`)
    if (o.p !== undefined) checkDecimal(o.p, `${at}.p`, problems)
    checkDecimal(o.qty, `${at}.qty`, problems)
    if (o.tif !== undefined && !TIFS.includes(o.tif))
      problems.push(`${at}.tif must be one of ${TIFS.join('|')}`)
    if (o.po !== undefined && typeof o.po !== 'boolean') problems.push(`${at}.po must be a boolean`)
    if (o.ro !== undefined && typeof o.ro !== 'boolean') problems.push(`${at}.ro must be a boolean`)
    if (o.coid !== undefined && (typeof o.coid !== 'string' || !COID_RE.test(o.coid)))
      problems.push(`${at}.coid must be 32 lowercase hex characters`)
    if (o.trigger !== undefined) {
      checkDecimal(o.trigger.trp, `${at}.trigger.trp`, problems)
      if (o.trigger.tpsl !== 'tp' && o.trigger.tpsl !== 'sl')
        problems.push(`${at}.trigger.tpsl must be tp|sl`)
      if (o.trigger.market !== undefined && typeof o.trigger.market !== 'boolean')
        problems.push(`${at}.trigger.market must be a boolean`)
    }
  })
  if (input.grp !== undefined && input.grp !== 'order' && input.grp !== 'position')
    problems.push('grp must be order|position')
  throwIfAny('invalid createOrders input', problems)
  return buildCreateOrdersUnchecked(input)
}

/**
 * `cancelOrders`: signed `["cancelOrders", [oid...]]`, body args `[oid...]`.
 * @throws {@link InputValidationError}
 */
export function buildCancelOrders(input: CancelOrdersInput): BuiltOp<CancelOrdersOp> {
  const problems: string[] = []
  if (input.oids.length === 0) problems.push('oids must not be empty')
  input.oids.forEach((oid, i) => {
    checkOrderId(oid, `oids[${i}]`, problems)
  })
  throwIfAny('invalid cancelOrders input', problems)
  return buildCancelOrdersUnchecked(input)
}

/**
 * `cancelAll`: signed `["cancelAll", []]` or `["cancelAll", [iid]]`, body args `{}` or `{iid}`.
 * @throws {@link InputValidationError}
 */
export function buildCancelAll(input: CancelAllInput = {}): BuiltOp<CancelAllOp> {
  const problems: string[] = []
  if (input.iid !== undefined) checkInstrumentId(input.iid, 'iid', problems)
  throwIfAny('invalid cancelAll input', problems)
  return buildCancelAllUnchecked(input)
}

/**
 * `modifyOrders`: signed `["modifyOrders", [[oid, p, qty]...]]`, body args `[{oid, p, qty}]`.
 * The positional layout is inferred (the official client has no modifyOrders; protocol-notes a.2).
 * @throws {@link InputValidationError}
 */
export function buildModifyOrders(input: ModifyOrdersInput): BuiltOp<ModifyOrdersOp> {
  const problems: string[] = []
  if (input.orders.length === 0) problems.push('orders must not be empty')
  input.orders.forEach((m, i) => {
    checkOrderId(m.oid, `orders[${i}].oid`, problems)
    checkDecimal(m.p, `orders[${i}].p`, problems)
    checkDecimal(m.qty, `orders[${i}].qty`, problems)
  })
  throwIfAny('invalid modifyOrders input', problems)
  return buildModifyOrdersUnchecked(input)
}

/**
 * `autoCancel`: signed `["autoCancel", [time]]`, body args `{time}`. The layout is inferred like
 * modifyOrders' (the official client does not send this op; protocol-notes a.2 and d).
 * @throws {@link InputValidationError}
 */
export function buildAutoCancel(input: { time: number }): BuiltOp<AutoCancelOp> {
  if (!Number.isSafeInteger(input.time) || input.time < 0)
    throw new InputValidationError('invalid autoCancel input', {
      details: ['time: a Unix ms integer ≥ 0 (0 clears)'],
    })
  return { op: { type: 'autoCancel', args: { time: input.time } }, signedOp: ['autoCancel', [input.time]] }
}

/**
 * `cancelOrdersCOID`: signed `["cancelOrdersCOID", [coid...]]`, body args `[coid...]` (the official
 * client's layout, trading.ts l.726).
 * @throws {@link InputValidationError}
 */
export function buildCancelOrdersCoid(input: { coids: readonly string[] }): BuiltOp<CancelOrdersCoidOp> {
  const problems: string[] = []
  if (input.coids.length === 0) problems.push('coids must not be empty')
  input.coids.forEach((c, i) => {
    if (typeof c !== 'string' || !COID_RE.test(c))
      problems.push(`coids[${i}] must be 32 lowercase hex characters`)
  })
  throwIfAny('invalid cancelOrdersCOID input', problems)
  return buildCancelOrdersCoidUnchecked(input)
}

/**
 * `updateLeverage`: signed `["updateLeverage", [iid, lev, cross]]`, body args `{cross, iid, lev}`
 * (the official client's layout, trading.ts l.827 and l.937). `cross` false = isolated margin.
 * @throws {@link InputValidationError}
 */
export function buildUpdateLeverage(input: {
  iid: number
  lev: number
  cross: boolean
}): BuiltOp<UpdateLeverageOp> {
  const problems: string[] = []
  checkInstrumentId(input.iid, 'iid', problems)
  if (!Number.isSafeInteger(input.lev) || input.lev < 1) problems.push('lev must be a positive integer')
  if (typeof input.cross !== 'boolean') problems.push('cross must be a boolean')
  throwIfAny('invalid updateLeverage input', problems)
  return buildUpdateLeverageUnchecked(input)
}

/**
 * `updateMargin`: signed `["updateMargin", [iid, amount]]`, body args `{amt, iid}` (the official body;
 * `amt` a signed decimal string, USD). The signed layout is not in the published client and is
 * inferred like modifyOrders' and autoCancel's (protocol-notes a.2, d).
 * @throws {@link InputValidationError}
 */
export function buildUpdateMargin(input: { iid: number; amount: string }): BuiltOp<UpdateMarginOp> {
  const problems: string[] = []
  checkInstrumentId(input.iid, 'iid', problems)
  if (
    typeof input.amount !== 'string' ||
    !/^-?\d+(\.\d+)?$/.test(input.amount) ||
    /^-?0+(\.0+)?$/.test(input.amount)
  )
    problems.push('amount must be a non-zero signed decimal string')
  throwIfAny('invalid updateMargin input', problems)
  return buildUpdateMarginUnchecked(input)
}

// ---- shape-only cores (shared with the verifier) ----------------------------------------------

export function buildCancelOrdersCoidUnchecked(input: {
  coids: readonly string[]
}): BuiltOp<CancelOrdersCoidOp> {
  const coids = [...input.coids]
  return { op: { type: 'cancelOrdersCOID', args: coids }, signedOp: ['cancelOrdersCOID', [...coids]] }
}

export function buildUpdateLeverageUnchecked(input: {
  iid: number
  lev: number
  cross: boolean
}): BuiltOp<UpdateLeverageOp> {
  return {
    op: { type: 'updateLeverage', args: { cross: input.cross, iid: input.iid, lev: input.lev } },
    signedOp: ['updateLeverage', [input.iid, input.lev, input.cross]],
  }
}

export function buildUpdateMarginUnchecked(input: { iid: number; amount: string }): BuiltOp<UpdateMarginOp> {
  return {
    op: { type: 'updateMargin', args: { amt: input.amount, iid: input.iid } },
    signedOp: ['updateMargin', [input.iid, input.amount]],
  }
}

export function buildCreateOrdersUnchecked(input: CreateOrdersInput): BuiltOp<CreateOrdersOp> {
  const positional: SignableValue[] = input.orders.map((o): SignableValue[] => [
    o.iid,
    o.buy,
    o.p,
    o.qty,
    o.tif,
    o.po ?? false,
    o.ro === true ? true : undefined,
    o.coid,
    o.trigger === undefined
      ? undefined
      : [o.trigger.market === true ? true : undefined, o.trigger.trp, o.trigger.tpsl],
  ])
  const op: CreateOrdersOp = { type: 'createOrders', args: input.orders.map(orderBody) }
  if (input.grp !== undefined) op.grp = input.grp
  const signedOp: SignedOp =
    input.grp === undefined ? ['createOrders', positional] : ['createOrders', positional, input.grp]
  return { op, signedOp }
}

export function buildCancelOrdersUnchecked(input: CancelOrdersInput): BuiltOp<CancelOrdersOp> {
  const oids = [...input.oids]
  return { op: { type: 'cancelOrders', args: oids }, signedOp: ['cancelOrders', [...oids]] }
}

export function buildCancelAllUnchecked(input: CancelAllInput): BuiltOp<CancelAllOp> {
  if (input.iid === undefined) return { op: { type: 'cancelAll', args: {} }, signedOp: ['cancelAll', []] }
  return { op: { type: 'cancelAll', args: { iid: input.iid } }, signedOp: ['cancelAll', [input.iid]] }
}

export function buildModifyOrdersUnchecked(input: ModifyOrdersInput): BuiltOp<ModifyOrdersOp> {
  return {
    op: { type: 'modifyOrders', args: input.orders.map((m) => ({ oid: m.oid, p: m.p, qty: m.qty })) },
    signedOp: ['modifyOrders', input.orders.map((m): SignableValue[] => [m.oid, m.p, m.qty])],
  }
}

/** Key order follows the official client's body (`iid, buy, po, qty, tif?, ro?, p?, c?, tr?`). */
function orderBody(o: CreateOrderInput): CreateOrderBody {
  const body: CreateOrderBody = { iid: o.iid, buy: o.buy, po: o.po ?? false, qty: o.qty }
  if (o.tif !== undefined) body.tif = o.tif
  if (o.ro === true) body.ro = true
  if (o.p !== undefined) body.p = o.p
  if (o.coid !== undefined) body.c = o.coid
  if (o.trigger !== undefined) {
    const tr: OrderTriggerBody = { tpsl: o.trigger.tpsl, trp: o.trigger.trp }
    if (o.trigger.market === true) tr.market = true
    body.tr = tr
  }
  return body
}

// ---- validation helpers -----------------------------------------------------------------------

const TIFS: readonly TimeInForce[] = ['gtc', 'ioc', 'fok']
const COID_RE = /^[0-9a-f]{32}$/
/** Plain non-negative decimal: no sign, exponent or leading dot (the venue's wire form). */
const DECIMAL_RE = /^\d+(\.\d+)?$/
const MAX_U32 = 4_294_967_295

function checkInstrumentId(v: unknown, field: string, problems: string[]): void {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > MAX_U32)
    problems.push(`${field} must be an integer in 0..${MAX_U32}`)
}

function checkOrderId(v: unknown, field: string, problems: string[]): void {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
    problems.push(`${field} must be a non-negative safe integer`)
}

function checkDecimal(v: unknown, field: string, problems: string[]): void {
  if (typeof v !== 'string' || !DECIMAL_RE.test(v)) problems.push(`${field} must be a decimal string`)
}

function throwIfAny(message: string, problems: readonly string[]): void {
  if (problems.length > 0) throw new InputValidationError(message, { details: problems })
}

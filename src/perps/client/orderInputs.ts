/**
 * The create and modify commands' inputs read without zod when they are plainly valid (issue 36: the
 * schema's parse of every batch's items was ~1.5 % of the simulated day). Each reader accepts only
 * inputs the schema accepts and builds the schema's own output (a fresh object per item with the
 * schema's keys in the schema's order, a key the input has set to `undefined` kept as `undefined`);
 * anything else, including a trigger, an unknown key or a refusal, goes to the schema, so every
 * refusal and its message stay the schema's. test/perps/client/orderInputs.test.ts holds both to that
 * over the schema's refusals and over generated inputs.
 */
import { isDecimalString, parseDecimal } from '../../decimal.ts'
import type { CreateOrderInput, ModifyOrderInput } from '../signing/ops.ts'

/** The create command's items as `CreateOrdersParams` (createOrders.ts) outputs them, or undefined: parse them. */
export function plainCreateOrders(orders: unknown): CreateOrderInput[] | undefined {
  return readItems(orders, plainCreate)
}

/** The modify command's items as `ModifyOrdersParams` (modifyOrders.ts) outputs them, or undefined: parse them. */
export function plainModifyOrders(mods: unknown): ModifyOrderInput[] | undefined {
  return readItems(mods, plainModify)
}

/** Every item read, or undefined when one is not plainly valid (or the list is empty or not a list). */
function readItems<T>(items: unknown, read: (item: unknown) => T | undefined): T[] | undefined {
  if (!Array.isArray(items) || items.length === 0) return undefined
  const out: T[] = []
  for (const item of items) {
    const value = read(item)
    if (value === undefined) return undefined
    out.push(value)
  }
  return out
}

const CREATE_KEYS: ReadonlySet<string> = new Set(['iid', 'buy', 'p', 'qty', 'tif', 'po', 'ro', 'coid'])
const MODIFY_KEYS: ReadonlySet<string> = new Set(['oid', 'p', 'qty'])

function plainCreate(item: unknown): CreateOrderInput | undefined {
  // A trigger is the schema's to read.
  if (!strictRecord(item, CREATE_KEYS) || 'trigger' in item) return undefined
  const { iid, buy, p, qty, tif, po, ro, coid } = item
  if (!(typeof iid === 'number' && Number.isSafeInteger(iid) && iid >= 0 && iid <= 4_294_967_295))
    return undefined
  if (typeof buy !== 'boolean' || !positiveDecimal(qty)) return undefined
  if (!(p === undefined || positiveDecimal(p))) return undefined
  if (!(tif === undefined || tif === 'gtc' || tif === 'ioc' || tif === 'fok')) return undefined
  if (!(po === undefined || typeof po === 'boolean') || !(ro === undefined || typeof ro === 'boolean'))
    return undefined
  if (!(coid === undefined || clientOrderId(coid))) return undefined
  // The schema's two refinements: post-only is GTC only, GTC needs a price.
  if (po === true && (tif === 'ioc' || tif === 'fok')) return undefined
  if (tif === 'gtc' && p === undefined) return undefined
  // The schema's output: its keys in its order, each the input has (`in`, as zod reads presence).
  const out: CreateOrderInput = 'p' in item ? { iid, buy, p, qty } : { iid, buy, qty }
  if ('tif' in item) out.tif = tif
  if ('po' in item) out.po = po
  if ('ro' in item) out.ro = ro
  if ('coid' in item) out.coid = coid
  return out
}

function plainModify(item: unknown): ModifyOrderInput | undefined {
  if (!strictRecord(item, MODIFY_KEYS)) return undefined
  const { oid, p, qty } = item
  if (!(typeof oid === 'number' && Number.isSafeInteger(oid) && oid >= 0)) return undefined
  if (!positiveDecimal(p) || !positiveDecimal(qty)) return undefined
  return { oid, p, qty }
}

/**
 * A plain object (`{...}` or null prototype) with no key but `keys` (zod's strict check walks the
 * same `for...in`).
 */
function strictRecord(item: unknown, keys: ReadonlySet<string>): item is Record<string, unknown> {
  if (typeof item !== 'object' || item === null) return false
  const proto: unknown = Object.getPrototypeOf(item)
  if (proto !== Object.prototype && proto !== null) return false
  for (const k in item) if (!keys.has(k)) return false
  return true
}

const PLAIN_DECIMAL_RE = /^\d+(\.\d+)?$/
const CLIENT_ORDER_ID_RE = /^[0-9a-f]{32}$/
const ALL_ZEROS_RE = /^0+$/

/** `PositiveDecimalInput`'s two refinements (perpsCall.ts). */
function positiveDecimal(s: unknown): s is string {
  return typeof s === 'string' && PLAIN_DECIMAL_RE.test(s) && isDecimalString(s) && parseDecimal(s).units > 0n
}

/** `ClientOrderId` (schemas/common.ts). */
function clientOrderId(s: unknown): s is string {
  return typeof s === 'string' && CLIENT_ORDER_ID_RE.test(s) && !ALL_ZEROS_RE.test(s)
}

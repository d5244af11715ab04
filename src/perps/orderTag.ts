/**
 * Our client order ids: how the bot recognises its own orders on a shared account, across restarts
 * and across processes. The venue's `coid` is 32 lowercase hex characters, not all zeros; we lay it
 * out as three fields:
 *
 *   tag (8 hex) | epoch (8 hex) | sequence (16 hex)
 *
 * - tag: who we are. Derived from a configured name (default `perpbot`) so a restarted or crashed
 *   run's orders are still ours, and two bots with different names on one account leave each
 *   other's orders alone. Orders without a coid, or with another tag, are foreign.
 * - epoch: the fleet's lease epoch for the account (0 outside a fleet), so a successor recognises a
 *   zombie's orders and cancels them by id.
 * - sequence: unique per order within a run: the run's start in ms (44 bits would do; we keep 40)
 *   and a 24-bit counter, so a restart never reuses an id of the run before it.
 */
import { keccak256, toBytes } from 'viem/utils'

export const DEFAULT_ORDER_TAG_NAME = 'perpbot'

const HEX32 = /^[0-9a-f]{32}$/

/** The 8-hex tag for a name: the first 4 bytes of keccak256(name), never all zeros. */
export function orderTagFor(name: string): string {
  const tag = keccak256(toBytes(name)).slice(2, 10)
  return tag === '00000000' ? '00000001' : tag
}

export interface ParsedClientOrderId {
  readonly tag: string
  readonly epoch: number
  readonly sequence: bigint
}

/** Splits a coid into its fields, or `undefined` when it is not 32 lowercase hex characters. */
export function parseClientOrderId(coid: string | null | undefined): ParsedClientOrderId | undefined {
  if (typeof coid !== 'string' || !HEX32.test(coid)) return undefined
  return {
    tag: coid.slice(0, 8),
    epoch: Number.parseInt(coid.slice(8, 16), 16),
    sequence: BigInt(`0x${coid.slice(16)}`),
  }
}

/** True when the order carries our tag (whatever its epoch). */
export function isOwnOrder(coid: string | null | undefined, tag: string): boolean {
  return parseClientOrderId(coid)?.tag === tag
}

/** Hands out unique coids for one run: tag, epoch, then start-time and counter. */
export interface ClientOrderIds {
  readonly tag: string
  readonly epoch: number
  next(): string
}

const MAX_EPOCH = 0xffff_ffff
const COUNTER_BITS = 24n
const COUNTER_MAX = (1n << COUNTER_BITS) - 1n
const START_MASK = (1n << 40n) - 1n

export function createClientOrderIds(opts: { tag: string; epoch?: number; startMs: number }): ClientOrderIds {
  if (!/^[0-9a-f]{8}$/.test(opts.tag)) throw new RangeError('order tag must be 8 lowercase hex characters')
  const epoch = opts.epoch ?? 0
  if (!Number.isInteger(epoch) || epoch < 0 || epoch > MAX_EPOCH)
    throw new RangeError(`order epoch must be an integer in 0..${MAX_EPOCH}`)
  const head = `${opts.tag}${epoch.toString(16).padStart(8, '0')}`
  // The run's start (ms, low 40 bits) in the high part of the sequence: a restart starts a new range.
  let start = BigInt(Math.max(0, Math.floor(opts.startMs))) & START_MASK
  let counter = 0n
  return {
    tag: opts.tag,
    epoch,
    next() {
      counter += 1n
      if (counter > COUNTER_MAX) {
        // 16.7 million orders in one run: move to the next start slot rather than wrap onto old ids.
        start = (start + 1n) & START_MASK
        counter = 1n
      }
      const sequence = (start << COUNTER_BITS) | counter
      return `${head}${sequence.toString(16).padStart(16, '0')}`
    },
  }
}

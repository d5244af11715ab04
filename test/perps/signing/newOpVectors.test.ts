/**
 * The new ops against the official client's own signing recipe, on every Node: the official
 * `createPerpsOpTypedDataPayload` (client src/websockets/perps/signing.ts) is msgpack (`@msgpack/msgpack`)
 * of the compacted positional op, keccak (`ox`), and the EIP-712 `Op{data,salt,ts}` payload (`ox`
 * TypedData). Rebuilt here from those same libraries, it must give our digest byte for byte. (The
 * official client itself is driven in officialClient.test.ts on Node >= 24.)
 */
import { encode } from '@msgpack/msgpack'
import { Hash, TypedData } from 'ox'
import { describe, expect, it } from 'vitest'
import { DEFAULT_PERPS_DOMAIN } from '../../../src/perps/signing/domain.ts'
import {
  type BuiltOp,
  buildCancelOrdersCoid,
  buildUpdateLeverage,
  buildUpdateMargin,
  type PerpsOp,
} from '../../../src/perps/signing/ops.ts'
import { opDigest, type SignedOp } from '../../../src/perps/signing/typedData.ts'

type Value = boolean | number | string | readonly Value[] | undefined

/** The official `compactSignableValue`: undefined array items dropped, recursively. */
function compact(v: Value): Value {
  return Array.isArray(v) ? v.filter((x) => x !== undefined).map(compact) : v
}

function officialDigest(op: SignedOp, salt: number, ts: number): string {
  return TypedData.getSignPayload({
    domain: { chainId: DEFAULT_PERPS_DOMAIN.chainId, name: 'Polymarket', version: '1' },
    message: {
      data: Hash.keccak256(encode(compact(op as Value)), { as: 'Hex' }),
      salt: BigInt(salt),
      ts: BigInt(ts),
    },
    primaryType: 'Op',
    types: {
      Op: [
        { name: 'data', type: 'bytes32' },
        { name: 'salt', type: 'uint64' },
        { name: 'ts', type: 'uint64' },
      ],
    },
  })
}

const cases: [string, BuiltOp<PerpsOp>][] = [
  ['updateLeverage isolated', buildUpdateLeverage({ iid: 7, lev: 3, cross: false })],
  ['updateLeverage cross, u32 id', buildUpdateLeverage({ iid: 4_294_967_295, lev: 50, cross: true })],
  ['cancelOrdersCOID', buildCancelOrdersCoid({ coids: ['0123456789abcdef0123456789abcdef'] })],
  ['updateMargin (inferred layout)', buildUpdateMargin({ iid: 2, amount: '-12.5' })],
]

describe('new op digests equal the official recipe', () => {
  it.each(cases)('%s', (_name, built) => {
    for (const [salt, ts] of [
      [0, 1_767_000_000_000],
      [4_294_967_295, 1_767_225_600_123],
    ] as const)
      expect(opDigest(DEFAULT_PERPS_DOMAIN, built.signedOp, { salt, ts })).toBe(
        officialDigest(built.signedOp, salt, ts),
      )
  })

  it('the bodies are the official client’s (trading.ts toPerpsCommandBodyOp)', () => {
    expect(buildUpdateLeverage({ iid: 7, lev: 3, cross: false })).toStrictEqual({
      op: { type: 'updateLeverage', args: { cross: false, iid: 7, lev: 3 } },
      signedOp: ['updateLeverage', [7, 3, false]],
    })
    expect(buildCancelOrdersCoid({ coids: ['0123456789abcdef0123456789abcdef'] })).toStrictEqual({
      op: { type: 'cancelOrdersCOID', args: ['0123456789abcdef0123456789abcdef'] },
      signedOp: ['cancelOrdersCOID', ['0123456789abcdef0123456789abcdef']],
    })
    expect(() => buildUpdateLeverage({ iid: 1, lev: 0, cross: true })).toThrow(/lev/)
    expect(() => buildCancelOrdersCoid({ coids: ['ABC'] })).toThrow(/coids\[0\]/)
    expect(() => buildUpdateMargin({ iid: 1, amount: '0' })).toThrow(/amount/)
  })
})

import { decode } from '@msgpack/msgpack'
import { bytesToHex } from 'viem'
import { describe, expect, it } from 'vitest'
import { InputValidationError } from '../../../src/errors.ts'
import {
  buildCancelAll,
  buildCancelOrders,
  buildCreateOrders,
  buildModifyOrders,
} from '../../../src/perps/signing/ops.ts'
import { compactSignableValue, encodeSignedOp } from '../../../src/perps/signing/typedData.ts'

const COID = '0123456789abcdef0123456789abcdef'

function caught(fn: () => unknown): InputValidationError {
  try {
    fn()
  } catch (e) {
    if (e instanceof InputValidationError) return e
    throw e
  }
  throw new Error('expected InputValidationError')
}

describe('buildCreateOrders', () => {
  it('maps every field to its slot and to the body, with c for coid and tr for the trigger', () => {
    const built = buildCreateOrders({
      orders: [
        {
          iid: 9,
          buy: false,
          p: '12.25',
          qty: '3',
          tif: 'gtc',
          po: false,
          ro: true,
          coid: COID,
          trigger: { trp: '11', tpsl: 'sl', market: true },
        },
      ],
      grp: 'position',
    })
    expect(built.signedOp).toStrictEqual([
      'createOrders',
      [[9, false, '12.25', '3', 'gtc', false, true, COID, [true, '11', 'sl']]],
      'position',
    ])
    expect(built.op).toStrictEqual({
      type: 'createOrders',
      args: [
        {
          iid: 9,
          buy: false,
          po: false,
          qty: '3',
          tif: 'gtc',
          ro: true,
          p: '12.25',
          c: COID,
          tr: { tpsl: 'sl', trp: '11', market: true },
        },
      ],
      grp: 'position',
    })
  })

  it('omits optional slots (positions shift after compaction) and always sends po', () => {
    const built = buildCreateOrders({ orders: [{ iid: 2, buy: true, qty: '1', tif: 'ioc', ro: false }] })
    expect(compactSignableValue(built.signedOp)).toStrictEqual([
      'createOrders',
      [[2, true, '1', 'ioc', false]],
    ])
    expect(built.op).toStrictEqual({
      type: 'createOrders',
      args: [{ iid: 2, buy: true, po: false, qty: '1', tif: 'ioc' }],
    })
    expect('grp' in built.op).toBe(false)
  })

  it('sends market only when true, and a limit trigger as [trp, tpsl]', () => {
    const built = buildCreateOrders({
      orders: [
        {
          iid: 3,
          buy: false,
          p: '59.5',
          qty: '4',
          ro: true,
          trigger: { trp: '60', tpsl: 'tp', market: false },
        },
      ],
      grp: 'order',
    })
    expect(compactSignableValue(built.signedOp)).toStrictEqual([
      'createOrders',
      [[3, false, '59.5', '4', false, true, ['60', 'tp']]],
      'order',
    ])
    expect(built.op.args[0]?.tr).toStrictEqual({ tpsl: 'tp', trp: '60' })
  })

  it('encodes ids as msgpack integers of minimal width, decimals as strings', () => {
    const built = buildCreateOrders({
      orders: [{ iid: 4_294_967_295, buy: true, p: '0.00001', qty: '1000', tif: 'fok' }],
    })
    const bytes = encodeSignedOp(built.signedOp)
    expect(bytesToHex(bytes)).toContain('ceffffffff') // uint32, not float64 (cb…)
    expect(decode(bytes)).toStrictEqual([
      'createOrders',
      [[4_294_967_295, true, '0.00001', '1000', 'fok', false]],
    ])
  })

  it('rejects bad input before signing, listing every problem', () => {
    const err = caught(() =>
      buildCreateOrders({
        orders: [
          { iid: -1, buy: true, p: '1e5', qty: '-2', tif: 'GTC' as 'gtc', coid: COID.toUpperCase() },
          { iid: 4_294_967_296, buy: true, qty: '.5', trigger: { trp: 'x', tpsl: 'tp' } },
          { iid: 1.5, buy: true, qty: '1' },
        ],
      }),
    )
    expect(err.details).toStrictEqual([
      'orders[0].iid must be an integer in 0..4294967295',
      'orders[0].p must be a decimal string',
      'orders[0].qty must be a decimal string',
      'orders[0].tif must be one of gtc|ioc|fok',
      'orders[0].coid must be 32 lowercase hex characters',
      'orders[1].iid must be an integer in 0..4294967295',
      'orders[1].qty must be a decimal string',
      'orders[1].trigger.trp must be a decimal string',
      'orders[2].iid must be an integer in 0..4294967295',
    ])
    expect(caught(() => buildCreateOrders({ orders: [] })).details).toStrictEqual([
      'orders must not be empty',
    ])
  })
})

describe('buildCancelOrders', () => {
  it('positional and body forms are the oid list', () => {
    const built = buildCancelOrders({ oids: [5, 2 ** 40] })
    expect(built.op).toStrictEqual({ type: 'cancelOrders', args: [5, 2 ** 40] })
    expect(built.signedOp).toStrictEqual(['cancelOrders', [5, 2 ** 40]])
    // 2^40 needs uint64 (cf), still an integer.
    expect(bytesToHex(encodeSignedOp(built.signedOp))).toBe(
      '0x92ac63616e63656c4f72646572739205cf0000010000000000',
    )
  })

  it('rejects empty lists and non-integer or unsafe ids', () => {
    expect(caught(() => buildCancelOrders({ oids: [] })).details).toStrictEqual(['oids must not be empty'])
    expect(caught(() => buildCancelOrders({ oids: [1.5, -1, 2 ** 53] })).details).toStrictEqual([
      'oids[0] must be a non-negative safe integer',
      'oids[1] must be a non-negative safe integer',
      'oids[2] must be a non-negative safe integer',
    ])
  })
})

describe('buildCancelAll', () => {
  it('all instruments: args {} and signed []', () => {
    const built = buildCancelAll()
    expect(built).toStrictEqual({ op: { type: 'cancelAll', args: {} }, signedOp: ['cancelAll', []] })
    expect(bytesToHex(encodeSignedOp(built.signedOp))).toBe('0x92a963616e63656c416c6c90')
  })

  it('one instrument: args {iid} and signed [iid]', () => {
    expect(buildCancelAll({ iid: 0 })).toStrictEqual({
      op: { type: 'cancelAll', args: { iid: 0 } },
      signedOp: ['cancelAll', [0]],
    })
    expect(() => buildCancelAll({ iid: -3 })).toThrow(InputValidationError)
  })
})

describe('buildModifyOrders', () => {
  it('body [{oid, p, qty}] and signed [[oid, p, qty]...]', () => {
    const built = buildModifyOrders({
      orders: [
        { oid: 77, p: '101', qty: '2.5' },
        { oid: 78, p: '99.75', qty: '1' },
      ],
    })
    expect(built.op).toStrictEqual({
      type: 'modifyOrders',
      args: [
        { oid: 77, p: '101', qty: '2.5' },
        { oid: 78, p: '99.75', qty: '1' },
      ],
    })
    expect(built.signedOp).toStrictEqual([
      'modifyOrders',
      [
        [77, '101', '2.5'],
        [78, '99.75', '1'],
      ],
    ])
    expect(decode(encodeSignedOp(built.signedOp))).toStrictEqual(built.signedOp)
  })

  it('rejects a numeric price (would hash as a number, not a decimal string)', () => {
    const err = caught(() =>
      buildModifyOrders({ orders: [{ oid: 1, p: 101 as unknown as string, qty: '1' }] }),
    )
    expect(err.details).toStrictEqual(['orders[0].p must be a decimal string'])
  })
})

describe('encodeSignedOp', () => {
  it('refuses numbers that would encode as floats', () => {
    expect(() => encodeSignedOp(['cancelOrders', [1.5]])).toThrow(InputValidationError)
    expect(() => encodeSignedOp(['cancelOrders', [2 ** 53]])).toThrow(InputValidationError)
  })

  it('removes undefined recursively, not only at the top level', () => {
    expect(
      compactSignableValue(['a', [undefined, [1, undefined, [undefined, 'x']]], undefined]),
    ).toStrictEqual(['a', [[1, ['x']]]])
  })
})

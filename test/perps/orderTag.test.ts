import { describe, expect, it } from 'vitest'
import {
  createClientOrderIds,
  isOwnOrder,
  orderTagFor,
  parseClientOrderId,
} from '../../src/perps/orderTag.ts'
import { ClientOrderId } from '../../src/perps/schemas/common.ts'

describe('client order ids', () => {
  it('are valid coids carrying tag, epoch and a unique sequence', () => {
    const tag = orderTagFor('perpbot')
    const ids = createClientOrderIds({ tag, epoch: 7, startMs: 1_780_000_000_000 })
    const a = ids.next()
    const b = ids.next()
    expect(ClientOrderId.safeParse(a).success).toBe(true)
    expect(a).not.toBe(b)
    expect(parseClientOrderId(a)).toMatchObject({ tag, epoch: 7 })
    expect(isOwnOrder(a, tag)).toBe(true)
    expect(isOwnOrder(a, orderTagFor('someone-else'))).toBe(false)
    expect(isOwnOrder(undefined, tag)).toBe(false)
    expect(isOwnOrder('not-hex', tag)).toBe(false)
  })

  it('a restart (a later start) never reuses an id of the run before it', () => {
    const tag = orderTagFor('perpbot')
    const first = createClientOrderIds({ tag, startMs: 1_000 })
    const seen = new Set(Array.from({ length: 1000 }, () => first.next()))
    const second = createClientOrderIds({ tag, startMs: 1_001 })
    for (let i = 0; i < 1000; i++) expect(seen.has(second.next())).toBe(false)
  })

  it('refuses a malformed tag or epoch', () => {
    expect(() => createClientOrderIds({ tag: 'xyz', startMs: 0 })).toThrow(/8 lowercase hex/)
    expect(() => createClientOrderIds({ tag: orderTagFor('a'), epoch: -1, startMs: 0 })).toThrow(/epoch/)
  })
})

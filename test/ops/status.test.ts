import { describe, expect, it } from 'vitest'
import { sanitizeForJson } from '../../src/ops/status.ts'

describe('sanitizeForJson', () => {
  it('drops secret-named keys case-insensitively and keeps everything else', () => {
    expect(
      sanitizeForJson({
        symbol: 'BTC-USDC',
        Secret: 'x',
        proxySecret: 'x',
        private_key: 'x',
        ownerPrivateKey: 'x',
        password: 'x',
        apiKey: 'x',
        mnemonic: 'x',
        nested: [{ passphrase: 'x', ok: 1 }],
        tokens: 5,
        hash: `0x${'cd'.repeat(32)}`,
      }),
    ).toEqual({ symbol: 'BTC-USDC', nested: [{ ok: 1 }], tokens: 5, hash: `0x${'cd'.repeat(32)}` })
  })

  it('scrubs known secret values inside strings, ignoring short or missing ones', () => {
    const secret = 'abcdefghij123'
    expect(
      sanitizeForJson(
        { msg: `x${secret}y${secret}`, list: [secret], short: 'abc' },
        { secrets: [secret, 'abc', undefined] },
      ),
    ).toEqual({ msg: 'x[redacted]y[redacted]', list: ['[redacted]'], short: 'abc' })
  })

  it('turns non-JSON values into JSON and drops what cannot be represented', () => {
    const err = new RangeError('bad range')
    expect(
      sanitizeForJson({
        inf: Number.POSITIVE_INFINITY,
        negInf: Number.NEGATIVE_INFINITY,
        nan: Number.NaN,
        big: 12345678901234567890n,
        when: new Date(0),
        map: new Map<string, unknown>([
          ['a', 1],
          ['apiSecret', 2],
        ]),
        set: new Set(['x', undefined]),
        err,
        fn: () => 1,
        sym: Symbol('s'),
        undef: undefined,
        nul: null,
      }),
    ).toEqual({
      inf: 'Infinity',
      negInf: '-Infinity',
      nan: 'NaN',
      big: '12345678901234567890',
      when: '1970-01-01T00:00:00.000Z',
      map: { a: 1 },
      set: ['x', null],
      err: 'RangeError: bad range',
      nul: null,
    })
  })

  it('drops cycles but keeps an object shared by two paths', () => {
    const shared = { v: 1 }
    const root: Record<string, unknown> = { a: shared, b: shared }
    root.self = root
    expect(sanitizeForJson(root)).toEqual({ a: { v: 1 }, b: { v: 1 } })
  })

  it('returns null for a top-level value JSON cannot hold', () => {
    expect(sanitizeForJson(undefined)).toBeNull()
  })
})

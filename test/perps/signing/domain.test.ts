import { describe, expect, it } from 'vitest'
import { InputValidationError } from '../../../src/errors.ts'
import {
  DEFAULT_PERPS_DOMAIN,
  perpsDomain,
  perpsDomainFromExchangeInfo,
  perpsDomainSeparator,
} from '../../../src/perps/signing/domain.ts'

describe('perps EIP-712 domain', () => {
  it('defaults to Polymarket / 1 / 137 with no verifyingContract', () => {
    expect(DEFAULT_PERPS_DOMAIN).toStrictEqual({ name: 'Polymarket', version: '1', chainId: 137 })
    expect(perpsDomain()).toStrictEqual(DEFAULT_PERPS_DOMAIN)
    expect(Object.isFrozen(DEFAULT_PERPS_DOMAIN)).toBe(true)
  })

  it('takes name, version and chain_id from /v1/info/exchange, ignoring the other fields', () => {
    const info = {
      name: 'PolymarketTest',
      version: '2',
      chain_id: 80_002,
      contract: '0xDCa4af75705dbB50f62437045afF9921947917d2',
      cancel_only: false,
    }
    expect(perpsDomainFromExchangeInfo(info)).toStrictEqual({
      name: 'PolymarketTest',
      version: '2',
      chainId: 80_002,
    })
  })

  it('each field feeds the separator', () => {
    const base = perpsDomainSeparator(DEFAULT_PERPS_DOMAIN)
    expect(perpsDomainSeparator(perpsDomain({ chainId: 1 }))).not.toBe(base)
    expect(perpsDomainSeparator(perpsDomain({ name: 'polymarket' }))).not.toBe(base)
    expect(perpsDomainSeparator(perpsDomain({ version: '2' }))).not.toBe(base)
  })

  it('rejects an invalid domain, listing every problem', () => {
    try {
      perpsDomainFromExchangeInfo({ name: '', version: '', chain_id: 0 })
      expect.unreachable()
    } catch (e) {
      expect(e).toBeInstanceOf(InputValidationError)
      expect((e as InputValidationError).details).toStrictEqual([
        'name must be a non-empty string',
        'version must be a non-empty string',
        'chainId must be a positive integer',
      ])
    }
    expect(() => perpsDomain({ chainId: 1.5 })).toThrow(InputValidationError)
  })
})

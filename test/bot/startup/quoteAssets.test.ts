import { describe, expect, it } from 'vitest'
import { quoteAssetProblems } from '../../../src/bot/startup/quoteAssets.ts'

describe('one quote asset per bot', () => {
  it('accepts one asset and names each asset with its symbols when mixed', () => {
    const usdc = (symbol: string) => ({ symbol, quote_asset: 'USDC' })
    expect(quoteAssetProblems([usdc('BTC-USDC'), usdc('ETH-USDC')])).toEqual([])
    expect(quoteAssetProblems([])).toEqual([])
    expect(
      quoteAssetProblems([usdc('BTC-USDC'), { symbol: 'BTC-EUR', quote_asset: 'EURC' }, usdc('ETH-USDC')]),
    ).toEqual([
      'quoted in USDC: BTC-USDC, ETH-USDC',
      'quoted in EURC: BTC-EUR',
      'totals are summed in one currency: run one bot (or config) per quote asset',
    ])
  })
})

import { Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { PnlLedger } from '../../src/bot/account/pnlLedger.ts'
import { registerPnlMetrics } from '../../src/ops/pnlMetrics.ts'

describe('PnL metrics', () => {
  it('exposes position, PnL, fees, funding and fills by liquidity per instrument', async () => {
    const ledger = new PnlLedger()
    ledger.applyFill({
      tid: 1,
      oid: 1,
      iid: 7,
      side: 'long',
      p: '10',
      qty: '2',
      taker: false,
      fee: '-0.01',
      pnl: '0',
      ts: 1,
    })
    ledger.applyFill({
      tid: 2,
      oid: 2,
      iid: 7,
      side: 'short',
      p: '11',
      qty: '1',
      taker: true,
      fee: '0.02',
      pnl: '1',
      ts: 2,
    })
    ledger.observePositions([{ instrument_id: 7, size: '1', entry_price: '10', unrealized_pnl: '0.5' }])
    const registry = new Registry()
    registerPnlMetrics(registry, { pnl: () => ledger.snapshot() }, [{ id: 7, symbol: 'BTC-USDC' }])
    const text = await registry.metrics()
    expect(text).toContain('perpbot_position_contracts{instrument="BTC-USDC"} 1')
    expect(text).toContain('perpbot_pnl_realized{instrument="BTC-USDC"} 1')
    expect(text).toContain('perpbot_pnl_unrealized{instrument="BTC-USDC"} 0.5')
    expect(text).toContain('perpbot_fees_paid{instrument="BTC-USDC"} 0.01')
    expect(text).toContain('perpbot_pnl_net{instrument="BTC-USDC"} 1.49')
    expect(text).toContain('perpbot_fills{instrument="BTC-USDC",liquidity="maker"} 1')
    expect(text).toContain('perpbot_fills{instrument="BTC-USDC",liquidity="taker"} 1')
  })
})

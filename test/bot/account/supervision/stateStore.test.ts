import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { AccountWatch } from '../../../../src/bot/account/accountWatch.ts'
import { createStateStore } from '../../../../src/bot/account/supervision/stateStore.ts'
import type { Portfolio } from '../../../../src/perps/schemas/account.ts'
import { WATCH as cfg } from '../../../helpers/accountFixtures.ts'

const liquidating: Portfolio = {
  positions: [],
  margin: {
    total_account_value: '100',
    total_initial_margin: '200',
    total_maintenance_margin: '120',
    total_position_value: '1000',
  },
  withdrawable: '0',
  in_liquidation: true,
  timestamp: 0,
}

describe('state journal', () => {
  it('an ongoing episode does not alert again after a restart', () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-state-'))
    const store = createStateStore(dir, (e) => {
      throw e
    })
    const before = new AccountWatch(cfg)
    expect(before.observePortfolio(liquidating, 1).map((a) => a.key)).toEqual(['liquidation', 'margin'])
    before.observeWithdrawals(
      [
        {
          withdraw_id: 9,
          asset: 'pUSD',
          amount: '1',
          to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
          fee: '0',
          status: 'failed',
          hash: '0x',
          confirmations: 0,
          required_confirmations: 1,
          created_timestamp: 0,
        },
      ],
      2,
    )
    store.write('w', before.exportState())

    const after = new AccountWatch(cfg)
    after.importState(store.read('w') ?? {})
    expect(after.observePortfolio(liquidating, 3)).toEqual([])
    expect(after.snapshot()).toMatchObject({ inLiquidation: true, marginLevel: 'critical' })
    // The failed withdrawal was already alerted: not again.
    expect(
      after.observeWithdrawals(
        [
          {
            withdraw_id: 9,
            asset: 'pUSD',
            amount: '1',
            to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
            fee: '0',
            status: 'failed',
            hash: '0x',
            confirmations: 0,
            required_confirmations: 1,
            created_timestamp: 0,
          },
        ],
        4,
      ),
    ).toEqual([])
  })

  it('a missing or corrupt journal is an empty state', () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-state-'))
    const store = createStateStore(dir, () => undefined)
    expect(store.read('none')).toBeUndefined()
    writeFileSync(join(dir, 'bad.json'), '{ not json')
    expect(store.read('bad')).toBeUndefined()
    const w = new AccountWatch(cfg)
    w.importState({ marginLevel: 'bogus' as never, withdrawals: [[1, null as never]] })
    expect(w.snapshot().marginLevel).toBe('ok')
  })
})

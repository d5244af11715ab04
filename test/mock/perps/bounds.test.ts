/** The mock bounds everything a caller can make it store (issue 11 item 8). */
import { describe, expect, it } from 'vitest'
import {
  MAX_LABEL_LENGTH,
  MAX_PROXIES_PER_ACCOUNT,
  registerAccount,
} from '../../../src/mock/perps/account/accounts.ts'
import { admitCommand, verifyCommand } from '../../../src/mock/perps/gate.ts'
import { SIGNATURE_WINDOW_MS } from '../../../src/mock/perps/options.ts'
import { ReplayGuard } from '../../../src/mock/perps/signatures/replay.ts'
import { createState } from '../../../src/mock/perps/state.ts'
import { CommandSigner } from '../../../src/perps/signing/commandSigner.ts'
import { buildCancelOrders } from '../../../src/perps/signing/ops.ts'
import { seededRandom } from '../../../src/random.ts'
import { call, OTHER_PK, OWNER, PROXY, PROXY_PK, rig, START } from './helpers.ts'

const proxyAddress = (i: number): string => `0x${(0xabc000 + i).toString(16).padStart(40, '0')}`

describe('mock storage bounds', () => {
  it('rejects a createProxy label over the limit with 400 and stores nothing', async () => {
    const r = await rig()
    const before = JSON.stringify(r.ex.accountOf(OWNER)?.proxies)
    for (const size of [MAX_LABEL_LENGTH + 1, 1 << 16]) {
      const body = await r.owner.signCreateProxy({
        proxy: proxyAddress(size),
        expiry: START + 3_600_000,
        label: 'x'.repeat(size),
      })
      const res = await call(r.handler, 'POST', '/v1/account/proxy', { body })
      expect(res.status).toBe(400)
      expect(res.body).toEqual({
        status: 'err',
        error: `invalid request body: label must be at most ${MAX_LABEL_LENGTH} characters`,
      })
    }
    expect(JSON.stringify(r.ex.accountOf(OWNER)?.proxies)).toBe(before)
    const ok = await r.owner.signCreateProxy({
      proxy: proxyAddress(1),
      expiry: START + 3_600_000,
      label: 'y'.repeat(MAX_LABEL_LENGTH),
    })
    expect((await call(r.handler, 'POST', '/v1/account/proxy', { body: ok })).status).toBe(200)
  })

  it('caps live proxies per account (422 proxy_limit_reached); expired ones make room', async () => {
    const r = await rig()
    // The rig registered one proxy (7-day expiry); fill the account with 1-hour ones.
    for (let i = 1; i < MAX_PROXIES_PER_ACCOUNT; i++) {
      const body = await r.owner.signCreateProxy({ proxy: proxyAddress(i), expiry: START + 3_600_000 })
      expect((await call(r.handler, 'POST', '/v1/account/proxy', { body })).status).toBe(200)
    }
    const extra = await r.owner.signCreateProxy({ proxy: proxyAddress(99), expiry: START + 7_200_000 })
    const refused = await call(r.handler, 'POST', '/v1/account/proxy', { body: extra })
    expect(refused).toMatchObject({ status: 422, body: { status: 'err', error: 'proxy_limit_reached' } })
    expect(r.ex.accountOf(OWNER)?.proxies).toHaveLength(MAX_PROXIES_PER_ACCOUNT)
    r.clock.advance(3_600_001)
    const later = await r.owner.signCreateProxy({ proxy: proxyAddress(99), expiry: START + 7_200_000 })
    expect((await call(r.handler, 'POST', '/v1/account/proxy', { body: later })).status).toBe(200)
    expect(r.ex.accountOf(OWNER)?.proxies.map((p) => p.proxy)).toEqual([PROXY, proxyAddress(99)])
  })

  it('caps the number of accounts createProxy can create (422 account_limit_reached)', async () => {
    const r = await rig({ maxAccounts: 1 })
    const stranger = new CommandSigner({ privateKey: OTHER_PK, clock: r.clock, salts: seededRandom(3) })
    const body = await stranger.signCreateProxy({ proxy: proxyAddress(5), expiry: START + 3_600_000 })
    const res = await call(r.handler, 'POST', '/v1/account/proxy', { body })
    expect(res).toMatchObject({ status: 422, body: { status: 'err', error: 'account_limit_reached' } })
    expect(r.ex.snapshot().accounts).toHaveLength(1)
    // The existing account can still register proxies.
    const own = await r.owner.signCreateProxy({ proxy: proxyAddress(6), expiry: START + 3_600_000 })
    expect((await call(r.handler, 'POST', '/v1/account/proxy', { body: own })).status).toBe(200)
  })

  it('never stores a referral code over 64 characters', async () => {
    const r = await rig()
    const long = 'A'.repeat(65)
    const res = await r.call('POST', '/v1/account/referral', { body: { code: long } })
    expect(res).toMatchObject({ status: 400, body: { status: 'err', error: 'invalid referral code' } })
    const stranger = new CommandSigner({ privateKey: OTHER_PK, clock: r.clock, salts: seededRandom(4) })
    const body = await stranger.signCreateProxy({
      proxy: proxyAddress(7),
      expiry: START + 3_600_000,
      code: 'B'.repeat(10_000),
    })
    expect((await call(r.handler, 'POST', '/v1/account/proxy', { body })).status).toBe(200)
    expect((await r.call('GET', '/v1/account/referral')).body).not.toHaveProperty('parent')
    expect(JSON.stringify(r.ex.snapshot()).includes('BBBB')).toBe(false)
  })

  it('bounds salt memory per signer in count and in time', () => {
    const guard = new ReplayGuard(1_000, 3)
    for (let salt = 1; salt <= 3; salt++) guard.record('0xA', salt, 10_000 + salt, 10_000 + salt)
    expect(guard.fullForMs('0xa', 10_500)).toBe(501)
    expect(guard.fullForMs('0xb', 10_500)).toBe(0)
    // Once the oldest ts leaves the window its slot frees.
    expect(guard.fullForMs('0xa', 11_002)).toBe(0)
    expect(guard.size('0xa')).toBe(2)
  })

  it('refuses a command from a signer whose salt memory is full (429 action_rate_limited)', async () => {
    let now = START
    const clock = { now: () => now, setTimeout: () => 0, clearTimeout: () => undefined }
    const base = createState({ clock, historyMinutes: 0 }, SIGNATURE_WINDOW_MS)
    const s = { ...base, replay: new ReplayGuard(SIGNATURE_WINDOW_MS, 2) }
    registerAccount(s, { owner: OWNER, proxies: [{ proxy: PROXY, secret: 's', expiry: START + 86_400_000 }] })
    const signer = new CommandSigner({ privateKey: PROXY_PK, clock, salts: seededRandom(9) })
    const cancel = async () => {
      const built = buildCancelOrders({ oids: [1] })
      const stamp = signer.stamp()
      const body = { op: built.op, sig: await signer.signOp(built.signedOp, stamp), ...stamp }
      return admitCommand(s, await verifyCommand(s, body, 'cancelOrders'), 'cancelOrders')
    }
    ;(await cancel()).commit()
    ;(await cancel()).commit()
    await expect(cancel()).rejects.toMatchObject({
      status: 429,
      code: 'action_rate_limited',
      retryAfterSeconds: 300,
    })
    now += SIGNATURE_WINDOW_MS + 1
    await expect(cancel()).resolves.toMatchObject({ op: { type: 'cancelOrders' } })
  })
})

describe('withdrawal history bound', () => {
  it('keeps at most withdrawalHistoryLimit finished withdrawals per account, never dropping pending ones', async () => {
    const r = await rig({
      withdrawalHistoryLimit: 2,
      withdrawalTiming: { mineDelayMs: 1_000, blockMs: 1_000, requiredConfirmations: 1 },
    })
    const ids = [r.ex.requestWithdrawal(OWNER, { amount: '1' })]
    r.clock.advance(5_000)
    ids.push(r.ex.requestWithdrawal(OWNER, { amount: '2' }))
    r.clock.advance(5_000)
    ids.push(r.ex.requestWithdrawal(OWNER, { amount: '3' }), r.ex.requestWithdrawal(OWNER, { amount: '4' }))
    const kept = r.ex.snapshot().accounts[0]?.withdrawals ?? []
    // Two pending fill the limit: every finished one went.
    expect(kept.map((w) => w.withdraw_id)).toEqual(ids.slice(2))
    expect(kept.map((w) => w.status)).toEqual(['pending', 'pending'])
    r.clock.advance(5_000)
    ids.push(r.ex.requestWithdrawal(OWNER, { amount: '5' }), r.ex.requestWithdrawal(OWNER, { amount: '6' }))
    ids.push(r.ex.requestWithdrawal(OWNER, { amount: '7' }))
    // Three pending exceed the limit and are all kept; no finished one is left.
    const after = r.ex.snapshot().accounts[0]?.withdrawals ?? []
    expect(after.map((w) => w.withdraw_id)).toEqual(ids.slice(4))
    expect(after.every((w) => w.status === 'pending')).toBe(true)
  })
})

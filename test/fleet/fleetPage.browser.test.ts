/**
 * The dashboard's fleet page in headless Chromium: an ops server with a fleet view over a real
 * redis-server (two leases, one holder's report, some weight in the window). The page lists every
 * account with holder, epoch, lease state, bot state, PnL and weight, and the egress's budget use;
 * a lease taken elsewhere shows on the next load; the page runs no script (its policy allows none)
 * and logs no error; `/fleet.json` serves the same view; with a token, the page needs it.
 */
import type { Redis } from 'ioredis'
import { type Browser, chromium } from 'playwright-core'
import { Registry } from 'prom-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AccountLease } from '../../src/fleet/accountLease.ts'
import { startHolderReports } from '../../src/fleet/fleetReport.ts'
import { readFleetView } from '../../src/fleet/fleetView.ts'
import { createSharedBudget } from '../../src/fleet/sharedBudget.ts'
import { createLogger } from '../../src/logging/logger.ts'
import { type RunningOpsServer, startOpsServer } from '../../src/ops/opsServer.ts'
import { CHROMIUM_ARGS, chromiumPath, waitInPage } from '../helpers/chromium.ts'
import { type RedisServer, redisSkipReason } from '../helpers/redis.ts'
import { startFleetRedis, stopFleetRedis } from './fleetRedis.ts'

const skip = redisSkipReason()
const TOKEN = 'fleet-page-token-0123456789'

describe.skipIf(skip !== undefined)(`fleet page in headless Chromium ${skip ?? ''}`, () => {
  let server: RedisServer
  let redis: Redis
  let browser: Browser | undefined
  let ops: RunningOpsServer | undefined
  beforeAll(async () => {
    ;({ server, redis } = await startFleetRedis())
    browser = await chromium.launch({
      executablePath: chromiumPath(),
      headless: true,
      args: [...CHROMIUM_ARGS],
    })
    ops = await startOpsServer({
      port: 0,
      registry: new Registry(),
      getStatus: () => {
        throw new Error('not in this test')
      },
      isReady: () => ({ ok: true, reasons: [] }),
      logger: createLogger({ level: 'silent', isTty: false }),
      token: TOKEN,
      fleet: {
        view: () =>
          readFleetView(redis, { accounts: ['acct-a', 'acct-b', 'acct-c'], egressId: 'nat-1', budget: 900 }),
      },
    })
  }, 30_000)
  afterAll(async () => {
    await ops?.close()
    await browser?.close()
    await stopFleetRedis({ server, redis })
  })

  it('lists every account with holder, epoch, state, PnL and weight; a new holder shows on reload', {
    timeout: 40_000,
  }, async () => {
    if (browser === undefined || ops === undefined) throw new Error('setup failed')
    const a = new AccountLease({ client: redis, account: 'acct-a', holderId: 'perpbot-0.7', ttlMs: 10_000 })
    const got = await a.tryAcquire()
    if (!got.acquired) throw new Error('acct-a not acquired')
    const reports = startHolderReports({
      client: redis,
      account: 'acct-a',
      holder: 'perpbot-0.7',
      epoch: got.epoch,
      held: () => true,
      ownWeight: () => 45,
      read: () => ({ state: 'quoting 3', netPnl: '-12.50', currency: 'USDC' }),
    })
    const budget = createSharedBudget({ client: redis, egressId: 'nat-1', budget: 900, graceMs: 1 })
    await budget.acquire(45, 'read')

    const page = await browser.newPage()
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text())
    })
    // Without the token: refused. With it (as a header): the page, under its script-free policy.
    expect((await fetch(`${ops.url}/fleet`)).status).toBe(401)
    await page.setExtraHTTPHeaders({ authorization: `Bearer ${TOKEN}` })
    const res = await page.goto(`${ops.url}/fleet`)
    expect(res?.status()).toBe(200)
    expect(res?.headers()['content-security-policy']).toContain("default-src 'none'")
    expect(res?.headers()['content-security-policy']).not.toContain('script-src')

    await waitInPage(page, `document.querySelectorAll('#accounts tbody tr').length === 3`)
    const rows = (await page.evaluate(
      `[...document.querySelectorAll('#accounts tbody tr')].map((tr) => [tr.dataset.account, tr.dataset.state, ...[...tr.querySelectorAll('td')].map((td) => td.textContent)])`,
    )) as string[][]
    const [rowA, rowB] = rows
    expect(rowA?.slice(0, 6)).toEqual(['acct-a', 'held', 'acct-a', 'held', 'perpbot-0.7', String(got.epoch)])
    expect(rowA?.[7]).toBe('quoting 3')
    expect(rowA?.[8]).toBe('-12.50 USDC')
    expect(rowA?.[9]).toBe('45 (5 %)')
    expect(rowB?.slice(0, 5)).toEqual(['acct-b', 'free', 'acct-b', 'free', '-'])
    expect(await page.evaluate(`document.querySelector('#budget').textContent`)).toContain(
      'request weight 45 of 900 in the window (5 %)',
    )
    expect(await page.evaluate(`document.querySelector('#held').textContent`)).toBe('1 of 3 accounts held')
    // The negative PnL is marked as such.
    expect(
      await page.evaluate(`document.querySelector('tr[data-account="acct-a"] td.neg')?.textContent`),
    ).toBe('-12.50 USDC')

    // Another process takes acct-b: the next load shows it held (the page reloads itself every 5 s).
    const b = new AccountLease({ client: redis, account: 'acct-b', holderId: 'perpbot-1.9', ttlMs: 10_000 })
    const gotB = await b.tryAcquire()
    await page.reload()
    await waitInPage(page, `document.querySelector('tr[data-account="acct-b"]')?.dataset.state === 'held'`)
    expect(
      await page.evaluate(`document.querySelector('tr[data-account="acct-b"] td:nth-child(3)').textContent`),
    ).toBe('perpbot-1.9')
    expect(await page.evaluate(`document.querySelector('meta[http-equiv="refresh"]').content`)).toBe('5')

    const json = await (
      await fetch(`${ops.url}/fleet.json`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).json()
    expect(json).toMatchObject({
      egressId: 'nat-1',
      windowWeight: 45,
      accounts: [
        { account: 'acct-a', state: 'held', report: { netPnl: '-12.50' } },
        { account: 'acct-b', state: 'held', epoch: gotB.acquired ? gotB.epoch : -1 },
        { account: 'acct-c', state: 'free' },
      ],
    })
    expect(errors).toEqual([])
    reports.stop()
    budget.stop()
    a.stop()
    b.stop()
  })
})

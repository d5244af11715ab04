/**
 * The dashboard in a real browser: headless Chromium (playwright-core) loads `GET /` from the ops
 * server of the real bot, dry-running against the mock over loopback on its accelerated clock. The
 * mock verifies another modifyOrders layout than ours, so the bot raises the `modify-fallback` alert
 * deterministically. The page must show every instrument, draw the charts and show that alert.
 */
import { type Browser, chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type BotOnMock, startBotOnMock } from '../../src/sim/botOnMock.ts'
import { CHROMIUM_ARGS, chromiumPath, waitInPage } from '../helpers/chromium.ts'

/** ops.shutdownTimeoutMs of the shipped configuration. */
const STOP_BUDGET_MS = 8_000

let browser: Browser | undefined
let run: BotOnMock | undefined

beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: [...CHROMIUM_ARGS],
  })
  run = await startBotOnMock({
    mock: {
      seed: 7,
      scenario: 'calm',
      clock: 'accelerated',
      speed: 20,
      catalogue: { eventCount: 20 },
      exchange: { modifyOrdersLayout: 'oid-qty-p' },
    },
    logLevel: 'warn',
    ops: true,
  })
}, 30_000)

afterAll(async () => {
  await run?.stop('test over')
  await browser?.close()
}, 20_000)

describe('dashboard in headless Chromium', () => {
  it('shows every instrument, draws the charts and shows the alert', { timeout: 40_000 }, async () => {
    if (!run || !browser) throw new Error('setup failed')
    const opsUrl = run.bot.opsUrl
    expect(opsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const symbols = run.bot.status().instruments.map((i) => i.symbol)
    expect(symbols.length).toBeGreaterThan(0)

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text())
    })
    const response = await page.goto(`${opsUrl}/`)
    expect(response?.status()).toBe(200)

    // Every instrument has its row, with a state.
    for (const symbol of symbols) {
      const row = page.locator(`#instruments tr[data-instrument="${symbol}"]`)
      await row.waitFor({ timeout: 15_000 })
      expect(await row.locator('td').nth(1).textContent()).toMatch(/^(active|halted|syncing)/)
    }
    // A chart per instrument plus the account's, each a drawn canvas of non-zero size.
    // (A string predicate: it runs in the page; this project's types have no DOM.)
    const charts = symbols.length + 3
    await waitInPage(
      page,
      `(() => { const c = [...document.querySelectorAll('.chart canvas')]; return c.length >= ${charts} && c.every((x) => x.width > 0 && x.height > 0) })()`,
      15_000,
    )
    for (const symbol of symbols) {
      const id = run.bot.status().instruments.find((i) => i.symbol === symbol)?.id
      const b = await page.locator(`[data-chart="i${id}"] canvas`).boundingBox()
      expect(b?.width, symbol).toBeGreaterThan(100)
    }
    const box = await page.locator('[data-chart="pnl"] canvas').boundingBox()
    expect(box?.width).toBeGreaterThan(100)
    expect(box?.height).toBeGreaterThan(50)
    // The alert appears live (it is raised after the page loaded or shortly before).
    const alert = page.locator('#open-alerts li.alert[data-key="modify-fallback"]')
    await alert.waitFor({ timeout: 25_000 })
    expect(await alert.textContent()).toContain('Modify refused')
    await expect.poll(() => page.locator('#conn').textContent(), { timeout: 5_000 }).toBe('live')
    expect(errors).toEqual([])

    // Stopping with the page connected stays within the stop budget; the page sees the stream end.
    const t0 = Date.now()
    await run.stop('test over')
    run = undefined
    expect(Date.now() - t0).toBeLessThan(STOP_BUDGET_MS)
    await expect.poll(() => page.locator('#conn').textContent(), { timeout: 5_000 }).toMatch(/^disconnected/)
  })
})

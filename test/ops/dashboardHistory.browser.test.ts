/**
 * The dashboard's history from the journal in headless Chromium: a previous run's minute snapshots
 * (three hours of them, far beyond the 30-minute timeline) and fills are in the journal; the bot
 * restarts on it (the real bot against the mock over loopback) and its page, served by the ops server,
 * draws that history and lists those fills.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Browser, chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import { systemClock } from '../../src/clock.ts'
import { openJournalDb } from '../../src/journal/database.ts'
import { createJournal, type Journal } from '../../src/journal/journal.ts'
import type { JournalHistory } from '../../src/journal/reading/history.ts'
import { JournalSettings } from '../../src/journal/settings.ts'
import { type BotOnMock, startBotOnMock } from '../../src/sim/botOnMock.ts'
import { CHROMIUM_ARGS, chromiumPath, waitInPage } from '../helpers/chromium.ts'

const dir = mkdtempSync(join(tmpdir(), 'perpbot-history-'))
const path = join(dir, 'journal-dry-run.sqlite')
const now = Date.now()
const startedAt = now - minuteAligned(3 * 3_600_000)
/** A moment some hours back, at the start of a minute. */
function minuteAligned(ms: number): number {
  return ms + (now % 60_000)
}

let browser: Browser | undefined
let run: BotOnMock | undefined
let journal: Journal | undefined

beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: [...CHROMIUM_ARGS],
  })
  // The restart: the same journal file, a new run of the real bot with its ops server.
  journal = createJournal({
    db: await openJournalDb({ kind: 'sqlite', path }),
    clock: systemClock,
    settings: JournalSettings.parse({}),
    venue: 'per-run',
    run: { version: 'now', mode: 'dry-run', configHash: 'h' },
  })
  run = await startBotOnMock({
    mock: { seed: 7, scenario: 'calm', catalogue: { eventCount: 10 } },
    logLevel: 'warn',
    ops: true,
    journal,
  })
  // The previous run: three hours of minute snapshots and three fills, closed as a stop would.
  const clock = new SimulatedClock()
  clock.set(startedAt)
  // The same account on the same venue (a dry run's is a throwaway account on its own mock: the
  // earlier run is written under the running bot's account, as a live restart's would be).
  const before = createJournal({
    db: await openJournalDb({ kind: 'sqlite', path }),
    clock,
    settings: JournalSettings.parse({}),
    run: { version: 'previous', mode: 'dry-run', configHash: 'h' },
    account: journal.scope().account,
    venue: journal.scope().venue,
  })
  for (let m = 0; m < 180; m++)
    before.snapshot({
      minute: startedAt + m * 60_000,
      iid: 1,
      position: '0',
      realizedPnl: (m / 10).toFixed(1),
      unrealizedPnl: '0',
      fees: '0',
      funding: '0',
      volume: '0',
      fills: 0,
      mode: 'quoting',
    })
  for (const k of [1, 2, 3])
    before.fill(
      {
        tradeId: `prev-${k}`,
        orderId: 900 + k,
        iid: 1,
        side: 'long',
        price: `6123${k}.5`,
        qty: '0.01',
        taker: false,
        fee: '0.01',
        feeAsset: 'pUSD',
        realizedPnl: '0',
        liquidation: false,
        ts: startedAt + k * 1_800_000,
      },
      'live',
    )
  clock.set(startedAt + 180 * 60_000)
  await before.close('previous run over')
}, 30_000)

afterAll(async () => {
  await run?.stop('test over')
  await journal?.close('test over')
  await browser?.close()
  rmSync(dir, { recursive: true, force: true })
}, 20_000)

describe('dashboard history from the journal', () => {
  it('shows a previous run’s PnL and fills after a restart', { timeout: 40_000 }, async () => {
    if (!run || !browser) throw new Error('setup failed')
    const opsUrl = run.bot.opsUrl ?? ''
    // The JSON the page reads: bounded, read-only, the previous run's points and fills.
    const h = (await (await fetch(`${opsUrl}/history?since=6h`)).json()) as JournalHistory
    expect(h.points.length).toBeGreaterThanOrEqual(180)
    expect(h.points[0]?.at).toBe(startedAt)
    expect(h.points[179]?.realizedPnl).toBeCloseTo(17.9, 6)
    expect(h.fills.map((f) => f.price).slice(-3)).toEqual(['61233.5', '61232.5', '61231.5'])
    expect((await fetch(`${opsUrl}/history?since=soon`)).status).toBe(400)

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text())
    })
    expect((await page.goto(`${opsUrl}/`))?.status()).toBe(200)
    // The previous run's fills, hours older than the 30-minute timeline, listed from the journal.
    await waitInPage(
      page,
      `(() => { const t = document.querySelector('#history-fills tbody')?.textContent ?? ''; return t.includes('61231.5') && t.includes('61233.5') })()`,
      15_000,
    )
    // The history chart is drawn over the page's default 7 days: one point every 11 minutes of the
    // previous run's three hours (uPlot's data: x and five series).
    await waitInPage(
      page,
      `(() => { const p = window.perpbotCharts && window.perpbotCharts.history; const c = document.querySelector('[data-chart="history"] canvas'); return !!p && !!c && c.width > 0 && p.data[0].length >= 16 })()`,
      15_000,
    )
    const first = Number(await page.evaluate(`window.perpbotCharts.history.data[0][0] * 1000`))
    expect(first).toBeGreaterThanOrEqual(startedAt)
    expect(first).toBeLessThan(startedAt + 11 * 60_000)
    expect(await page.locator('#history-note').textContent()).toMatch(/ fills since /)
    expect(errors).toEqual([])
    await page.close()
  })
})

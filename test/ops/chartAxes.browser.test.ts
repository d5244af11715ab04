/**
 * Charts that tell the truth, read in headless Chromium: the dashboard (its real ops server, a timeline
 * driven by hand) and the simulate report (rendered from a record). For a price near 58,000, a negative
 * position and a margin ratio near 0.001 the rendered tick labels are whole (the axis is as wide as its
 * longest label), keep their signs and tell neighbouring ticks apart; a flat zero position gets a small
 * range around 0 (not 0–100); time labels do not overlap; fills read buy/sell and an opening fill's PnL
 * is blank.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { type Browser, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../src/logging/logger.ts'
import type { TimelineSample, TimelineSource } from '../../src/ops/dashboard/timelineTypes.ts'
import { createBotMetrics } from '../../src/ops/metrics.ts'
import { type RunningOpsServer, startOpsServer } from '../../src/ops/opsServer.ts'
import type { SimRecord } from '../../src/sim/simulate/model.ts'
import { renderReport } from '../../src/sim/simulate/report.ts'
import { CHROMIUM_ARGS, chromiumPath, waitInPage } from '../helpers/chromium.ts'

const T0 = Date.UTC(2026, 10, 27, 9, 0, 0)
const N = 120
/** A price wandering 57,283 … 58,874, a short position, a margin ratio near 0.001. */
const priceAt = (k: number): number => 58_078 + 795 * Math.sin(k / 9)
const positionAt = (k: number): number => -0.005 + 0.003 * Math.cos(k / 7)
const ratioAt = (k: number): number => 0.001 + 0.0003 * Math.sin(k / 11)

function sample(k: number): TimelineSample {
  const p = priceAt(k)
  return {
    at: T0 + k * 2_000,
    instruments: [
      {
        id: 1,
        symbol: 'BTC-USDC',
        state: 'active.normal.quoting',
        reason: 'ok',
        mode: 'normal',
        index: p,
        mark: p + 1,
        bid: p - 5,
        ask: p + 5,
        position: positionAt(k),
        openOrders: 2,
        priceDecimals: 1,
        quantityDecimals: 3,
      },
      {
        id: 2,
        symbol: 'ETH-USDC',
        state: 'active.normal.quoting',
        reason: 'ok',
        mode: 'normal',
        index: 3_000,
        mark: 3_000,
        bid: 2_999,
        ask: 3_001,
        position: 0,
        openOrders: 2,
      },
    ],
    account: {
      realizedPnl: k * 0.01,
      unrealizedPnl: -k * 0.02,
      fees: 0.001 * k,
      funding: 0,
      netPnl: -k * 0.011,
      marginRatio: ratioAt(k),
    },
    limiter: { request: { used: 10, capacity: 900 }, action: { used: 2, capacity: 4500 } },
  }
}

const timeline: TimelineSource = {
  snapshot: () => ({
    intervalMs: 2_000,
    capacity: 900,
    samples: Array.from({ length: N }, (_, k) => sample(k)),
    board: {
      botMode: 'dry-run',
      currency: 'USDC',
      fills: [
        {
          at: T0 + 60_000,
          symbol: 'BTC-USDC',
          side: 'short',
          price: '58100.5',
          qty: '0.002',
          fee: '0.0116',
          pnl: '0',
          maker: true,
          liquidation: false,
        },
        {
          at: T0 + 50_000,
          symbol: 'BTC-USDC',
          side: 'long',
          price: '58000.0',
          qty: '0.001',
          fee: '0.0058',
          pnl: '1.25',
          maker: true,
          liquidation: false,
        },
      ],
      openAlerts: [],
      recentAlerts: [],
    },
  }),
  subscribe: () => () => undefined,
}

interface AxisView {
  values: string[]
  size: number
  side: number
  widest: number
  /** Tick length and gap: the label must fit in what is left of the axis. */
  margin: number
  /** For the x axis: [left, right] pixel extents of each label. */
  extents: [number, number][]
}

/** Reads every axis of a chart: its rendered labels, its size and the widest label in CSS px. */
async function axes(page: Page, name: string): Promise<AxisView[]> {
  return page.evaluate(`(() => {
    const u = window.perpbotCharts[${JSON.stringify(name)}];
    const ctx = document.createElement('canvas').getContext('2d');
    const ratio = uPlot.pxRatio || 1;
    return u.axes.map((a) => {
      ctx.font = a.font[0];
      const values = (a._values || []).map(String);
      const widths = values.map((v) => ctx.measureText(v).width / ratio);
      const extents = a.side === 2 ? (a._splits || []).map((s, i) => {
        const x = u.valToPos(s, 'x');
        return [x - widths[i] / 2, x + widths[i] / 2];
      }) : [];
      const margin = (a.ticks && a.ticks.show !== false ? a.ticks.size : 0) + (a.gap || 0);
      return { values, size: a._size, side: a.side, widest: Math.max(0, ...widths), margin, extents };
    });
  })()`)
}

const yAxis = (list: AxisView[], side = 3): AxisView => {
  const a = list.find((x) => x.side === side)
  if (!a) throw new Error(`no axis on side ${side}`)
  return a
}

function expectWhole(a: AxisView): void {
  expect(a.values.length).toBeGreaterThan(1)
  // The axis holds its longest label (plus the tick): nothing is clipped.
  expect(a.size).toBeGreaterThanOrEqual(a.widest + a.margin)
  // Neighbouring ticks read differently.
  expect(new Set(a.values).size).toBe(a.values.length)
}

function expectNoOverlap(a: AxisView): void {
  const xs = [...a.extents].sort((p, q) => p[0] - q[0])
  for (let i = 1; i < xs.length; i++) expect(xs[i]?.[0] ?? 0).toBeGreaterThan(xs[i - 1]?.[1] ?? 0)
}

function expectPriceAxis(a: AxisView): void {
  expectWhole(a)
  for (const v of a.values) expect(v).toMatch(/^5[78],\d{3}$/)
}

function expectPositionAxis(a: AxisView): void {
  expectWhole(a)
  expect(a.values.some((v) => v.startsWith('-0.00'))).toBe(true)
}

function expectRatioAxis(a: AxisView): void {
  expectWhole(a)
  for (const v of a.values) expect(v).toMatch(/^0\.\d+%$/)
}

let browser: Browser | undefined
let server: RunningOpsServer | undefined

beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: [...CHROMIUM_ARGS],
  })
  server = await startOpsServer({
    port: 0,
    registry: createBotMetrics({ defaultMetrics: false }).registry,
    getStatus: () => ({
      mode: 'dry-run',
      startedAt: 0,
      uptimeMs: 0,
      instruments: [],
      account: { inLiquidation: false, pendingWithdrawals: 0 },
      limiter: { budgets: {} },
      alerts: [],
    }),
    isReady: () => ({ ok: true, reasons: [] }),
    logger: createLogger({ destination: { write: () => undefined }, pretty: 'never' }),
    timeline,
  })
}, 30_000)

afterAll(async () => {
  await server?.close()
  await browser?.close()
})

describe('chart axes in headless Chromium', () => {
  it('dashboard: whole labels with signs, flat zero near 0, buy/sell fills', {
    timeout: 30_000,
  }, async () => {
    if (!browser || !server) throw new Error('setup failed')
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } })
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    await page.goto(`${server.url}/`)
    await waitInPage(
      page,
      `(() => window.perpbotCharts && window.perpbotCharts.margin && window.perpbotCharts.i2)()`,
    )

    const btc = await axes(page, 'i1')

    expectPriceAxis(yAxis(btc, 3))
    expectPositionAxis(yAxis(btc, 1))
    expectNoOverlap(yAxis(btc, 2))
    expectRatioAxis(yAxis(await axes(page, 'margin')))
    // A flat zero position: a small range around 0, not 0–100.
    const flat = yAxis(await axes(page, 'i2'), 1)
    expect(flat.values).toContain('0.0')
    expect(flat.values.every((v) => Math.abs(Number(v)) <= 1)).toBe(true)

    const rows = await page.locator('#fills tbody tr').allTextContents()
    expect(rows[0]).toContain('sell')
    expect(rows[1]).toContain('buy')
    const pnl = await page.locator('#fills tbody tr').nth(0).locator('td').nth(6).textContent()
    expect(pnl).toBe('')
    expect(await page.locator('#fills tbody tr').nth(1).locator('td').nth(6).textContent()).toBe('1.25 USDC')
    expect(await page.locator('#instruments tbody tr').first().textContent()).toMatch(/5[78],\d{3}\.\d\b/)
    expect(await page.locator('#account').textContent()).toContain('%')
    expect(errors).toEqual([])
    await page.close()
  })

  it('simulate report: the same axes', { timeout: 30_000 }, async () => {
    if (!browser) throw new Error('setup failed')
    const dist = join(dirname(createRequire(import.meta.url).resolve('uplot/package.json')), 'dist')
    const series = Array.from({ length: N }, (_, k) => ({
      t: T0 + k * 30_000,
      v: [priceAt(k), priceAt(k) - 5, priceAt(k) + 5, positionAt(k)],
    }))
    const record: SimRecord = {
      meta: {
        strategy: 'index-peg',
        scenario: 'calm',
        seed: 1,
        hours: 1,
        startMs: T0,
        endMs: T0 + N * 30_000,
        perpbotVersion: 'test',
      },
      instruments: [
        {
          symbol: 'BTC-USDC',
          id: 1,
          series,
          fills: [
            { t: T0 + 90_000, price: 58_000, qty: 0.001, buy: true, maker: true },
            { t: T0 + 120_000, price: 58_100, qty: 0.001, buy: false, maker: true },
          ],
          fillStride: 1,
          totals: { fills: 2, makerFills: 2, volume: 116, realizedPnl: 0.1, fees: 0.01 },
          time: { quotingMs: 1, haltedMs: 0, otherMs: 0, haltedBy: {} },
        },
      ],
      account: series.map((p, k) => ({ t: p.t, v: [0, 0, 0, 0, 0, ratioAt(k)] })),
      weights: series.map((p) => ({ t: p.t, v: [10, 900, 0, 4500] })),
      alerts: [],
      alertsTotal: 0,
      funding: 0,
      unrealizedPnl: 0,
      currency: 'USDC',
    }
    const html = renderReport(record, {
      uplotJs: readFileSync(join(dist, 'uPlot.iife.min.js'), 'utf8'),
      uplotCss: readFileSync(join(dist, 'uPlot.min.css'), 'utf8'),
    })
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } })
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    await page.setContent(html)
    await waitInPage(page, `(() => window.perpbotCharts && window.perpbotCharts.weights)()`)
    const price = await axes(page, 'price:BTC-USDC')
    expectPriceAxis(yAxis(price))
    expectNoOverlap(yAxis(price, 2))
    expectPositionAxis(yAxis(await axes(page, 'position:BTC-USDC')))
    expectRatioAxis(yAxis(await axes(page, 'margin')))
    // The PnL is flat at zero here: a range around 0, not 0–100.
    expect(yAxis(await axes(page, 'pnl')).values.every((v) => Math.abs(Number(v)) <= 1)).toBe(true)
    expect(errors).toEqual([])
    await page.close()
  })
})

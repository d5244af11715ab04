import { describe, expect, it } from 'vitest'
import type { SimRecord } from '../../../src/sim/simulate/model.ts'
import { escapeHtml, renderReport, scriptJson } from '../../../src/sim/simulate/report.ts'

const assets = { uplotJs: '/*UPLOT-JS*/', uplotCss: '/*UPLOT-CSS*/' }

const record: SimRecord = {
  meta: {
    strategy: 'index-peg',
    scenario: 'calm',
    seed: 7,
    hours: 1,
    startMs: Date.UTC(2026, 0, 5),
    endMs: Date.UTC(2026, 0, 5, 1),
    perpbotVersion: '0.1.0',
  },
  instruments: [
    {
      symbol: 'BTC-USDC',
      id: 1,
      series: [
        { t: Date.UTC(2026, 0, 5), v: [100, 99.5, 100.5, 0] },
        { t: Date.UTC(2026, 0, 5, 0, 30), v: [101.123456789123, 100.5, 101.5, 0.01] },
      ],
      fills: [{ t: Date.UTC(2026, 0, 5, 0, 20), price: 99.5, qty: 0.01, buy: true, maker: true }],
      fillStride: 1,
      totals: { fills: 1, makerFills: 1, volume: 0.995, realizedPnl: 0, fees: 0.001 },
      time: { quotingMs: 3_000_000, haltedMs: 600_000, otherMs: 0, haltedBy: { 'index stale': 600_000 } },
    },
  ],
  account: [{ t: Date.UTC(2026, 0, 5), v: [0, 0, 0, 0, 0, null] }],
  weights: [{ t: Date.UTC(2026, 0, 5), v: [10, 900, 0, 4500] }],
  alerts: [
    {
      t: Date.UTC(2026, 0, 5, 0, 40),
      level: 'warning',
      kind: 'margin',
      title: 'Margin <low>',
      resolved: false,
    },
  ],
  alertsTotal: 1,
  funding: -0.5,
  unrealizedPnl: 0.25,
}

describe('renderReport', () => {
  const html = renderReport(record, assets)

  it('is one self-contained page: uPlot and the data inlined, nothing fetched', () => {
    expect(html).toContain('<script>/*UPLOT-JS*/</script>')
    expect(html).toContain('<style>/*UPLOT-CSS*/</style>')
    expect(html).toContain('<script type="application/json" id="sim-data">')
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)=/i)
  })

  it('has the summary table with PnL, fees and funding apart, maker share, drawdown and time halted', () => {
    expect(html).toContain('<td>Net PnL</td><td>0.749 USDC</td>')
    expect(html).toContain('<td>Fees paid</td><td>0.001 USDC</td>')
    expect(html).toContain('<td>Funding paid (− received)</td><td>-0.50 USDC</td>')
    expect(html).toContain('<td>Maker share</td><td>100.0 %</td>')
    expect(html).toContain('<td>Time halted</td><td>16.7 %</td>')
    expect(html).toContain('index stale: 10m 00s')
    expect(html).toContain('<td>Max drawdown (net PnL)</td>')
  })

  it('lists alerts with time, level and kind, escaped', () => {
    expect(html).toContain(
      '<td>2026-01-05 00:40:00</td><td>warning</td><td>margin</td><td>Margin &lt;low&gt;</td>',
    )
  })

  it('embeds the chart data, rounded, with one section per instrument', () => {
    const json = /<script type="application\/json" id="sim-data">(.*?)<\/script>/s.exec(html)?.[1]
    const data = JSON.parse(json ?? 'null') as {
      instruments: { symbol: string; series: { v: number[] }[] }[]
    }
    expect(data.instruments[0]?.symbol).toBe('BTC-USDC')
    expect(data.instruments[0]?.series[1]?.v[0]).toBe(101.123457)
    expect(html).toContain('<section id="inst-0">')
  })

  it('renders the same record to the same bytes', () => {
    expect(renderReport(record, assets)).toBe(html)
  })

  it('escapes text and script data', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;')
    expect(scriptJson({ s: '</script>' })).toBe('{"s":"\\u003c/script>"}')
  })
})

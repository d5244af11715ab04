/** The soak's end checks that read only their inputs: the bot's view against the mock's books, and each crash episode's alerts; and its docs regions. */
import type { AccountView } from '../src/mock/perps/wire.ts'
import type { BotStatus } from '../src/ops/status.ts'
import { countsSince, type EpisodeCounts } from './alertEpisodes.ts'
import { type Check, checksTable, writeRegion } from './docRegions.ts'
import type { SoakStep } from './soakPhases.ts'

export interface ViewDiff {
  equal: boolean
  orders: { bot: number; mock: number }
  positions: { bot: number; mock: number }
  differences: string[]
}

/** The bot's open orders (count per instrument) and positions against the mock's own books. */
export function compareViews(
  status: Pick<BotStatus, 'instruments'>,
  venue: AccountView | undefined,
): ViewDiff {
  const mockOrders = new Map<number, number>()
  for (const o of venue?.openOrders ?? [])
    mockOrders.set(o.instrument_id, (mockOrders.get(o.instrument_id) ?? 0) + 1)
  const mockPos = new Map<number, number>()
  for (const p of venue?.portfolio.positions ?? [])
    if (Number(p.size) !== 0) mockPos.set(p.instrument_id, Number(p.size))
  const differences: string[] = []
  let botOrders = 0
  let botPositions = 0
  const seen = new Set<number>()
  for (const i of status.instruments) {
    seen.add(i.id)
    botOrders += i.openOrders
    const pos = Number(i.pnl?.position ?? '0')
    if (pos !== 0) botPositions += 1
    if (i.openOrders !== (mockOrders.get(i.id) ?? 0))
      differences.push(`${i.symbol} orders bot ${i.openOrders} / mock ${mockOrders.get(i.id) ?? 0}`)
    if (pos !== (mockPos.get(i.id) ?? 0))
      differences.push(`${i.symbol} position bot ${pos} / mock ${mockPos.get(i.id) ?? 0}`)
  }
  for (const [id, n] of mockOrders)
    if (!seen.has(id)) differences.push(`instrument ${id}: ${n} mock order(s) the bot does not track`)
  for (const [id, q] of mockPos)
    if (!seen.has(id)) differences.push(`instrument ${id}: mock position ${q} the bot does not track`)
  return {
    equal: differences.length === 0,
    orders: { bot: botOrders, mock: [...mockOrders.values()].reduce((a, b) => a + b, 0) },
    positions: { bot: botPositions, mock: mockPos.size },
    differences,
  }
}

/**
 * Each crash episode's alerts: margin or liquidation raised in it, liquidation at most once per venue
 * liquidation episode of its span (counts at each step's start; the last span ends at `end`).
 */
export function crashEpisodes(
  steps: readonly SoakStep[],
  countsAtStep: readonly ReadonlyMap<string, EpisodeCounts>[],
  end: ReadonlyMap<string, EpisodeCounts>,
  venueLiqAtStep: readonly number[],
  venueLiqEnd: number,
): { ok: boolean; figures: string[] } {
  const figures: string[] = []
  let ok = true
  steps.forEach((st, i) => {
    if (st.phase !== 'crash') return
    const d = countsSince(countsAtStep[i] ?? new Map(), countsAtStep[i + 1] ?? end)
    const margin = d.get('margin') ?? { raised: 0, resolved: 0 }
    const liq = d.get('liquidation') ?? { raised: 0, resolved: 0 }
    const venue = (venueLiqAtStep[i + 1] ?? venueLiqEnd) - (venueLiqAtStep[i] ?? 0)
    if (margin.raised + liq.raised === 0 || liq.raised > Math.max(1, venue)) ok = false
    figures.push(
      `#${st.episode}: margin raised ${margin.raised} / resolved ${margin.resolved}, liquidation ${liq.raised} / ${liq.resolved} (venue liquidation episodes ${venue})`,
    )
  })
  return { ok, figures }
}

/** Replaces the soak regions of docs/reliability.md and docs/benchmarks.md with this run's figures. */
export function writeSoakDocs(
  title: string,
  head: string,
  summary: readonly string[],
  checks: Check[],
): void {
  const body = `${head}\n\n${summary.map((l) => `- ${l}`).join('\n')}\n\n${checksTable(checks)}`
  writeRegion('docs/reliability.md', 'soak', `## Soak: ${title}\n\n${body}`)
  writeRegion('docs/benchmarks.md', 'soak', `### Soak figures (latest run)\n\n${body}`)
  console.log('docs/reliability.md and docs/benchmarks.md: soak regions rewritten')
}

/**
 * Issue 24, point 4: absurd sizes are never signed. A drop-in strategy whose params the config cannot
 * judge (its own hand-rolled schema) quotes 9.9e43 BTC at a sane price; the bot runs against the
 * hostile venue and not one create or modify with such a quantity reaches the wire.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { type HostileRun, startBotOnHostileVenue } from '../adversarial/hostileVenue.ts'

const HUGE = `99${'0'.repeat(42)}`

const hugeStrategy = `
export const strategy = {
  name: 'huge-size',
  description: 'one bid of 9.9e43 just under the index',
  paramsSchema: { safeParse: () => ({ success: true, data: { positionCap: '${HUGE}0' } }) },
  quote(snapshot) {
    if (snapshot.index === undefined) return []
    return [{ side: 'buy', price: String(Math.floor(Number(snapshot.index.price) * 0.999)), qty: '${HUGE}' }]
  },
}
`

let run: HostileRun | undefined
afterEach(async () => {
  await run?.close()
  run = undefined
})

describe('sizes are checked before signing', () => {
  it('a 44-digit size never reaches the wire; the instrument says why', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-huge-'))
    writeFileSync(join(dir, 'hugeSize.mjs'), hugeStrategy)
    run = await startBotOnHostileVenue({
      mock: { seed: 51, scenario: 'calm', clock: 'real', catalogue: { eventCount: 5 } },
      overrides: {
        strategiesDir: dir,
        instruments: [{ symbol: 'BTC-USDC', strategy: 'huge-size', params: {} }],
      },
    })
    const r = run
    // The actor planned (and refused) several times, and says why.
    await vi.waitFor(
      () => expect(JSON.stringify(r.bot.status().instruments[0]?.degraded)).toContain('above the maximum'),
      { timeout: 20_000, interval: 100 },
    )
    expect(r.bot.status().instruments[0]?.stats).toMatchObject({ submitted: 0 })
    const sentQuantities = r.venue.exchanges
      .filter((x) => x.method !== 'GET' && x.path.startsWith('/v1/trade/orders'))
      .flatMap((x) => JSON.stringify(x.body).match(/"qty":"[0-9.]+"/g) ?? [])
    expect(sentQuantities.filter((q) => q.length > 30)).toEqual([])
    expect(JSON.stringify(r.venue.exchanges.map((x) => x.body))).not.toContain(HUGE)
  }, 60_000)
})

/**
 * `perpbot report --check`: the live journal against the venue's own fills and funding (here the
 * standalone mock over loopback, read through the perps client's history pages), every difference
 * named and exit 1; a journal that matches exits 0. The comparison itself is pure (`compareBooks`).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import { systemClock } from '../../src/clock.ts'
import { openJournalDb } from '../../src/journal/database.ts'
import { createJournal } from '../../src/journal/journal.ts'
import { domainVenue } from '../../src/journal/journalScope.ts'
import { compareBooks, comparePositions } from '../../src/journal/reading/check.ts'
import { JournalSettings } from '../../src/journal/settings.ts'
import { type RunningMock, startMockServer } from '../../src/mock/server.ts'
import { createPerpsClient } from '../../src/perps/client/createPerpsClient.ts'
import { perpsDomainFromExchangeInfo } from '../../src/perps/signing/domain.ts'
import { systemRandom } from '../../src/random.ts'
import { perpbot } from '../cli/perpbotCli.ts'
import { OWNER_PK, viemOwner } from '../mock/perps/helpers.ts'
import { fill, T0 } from './fixtures.ts'

describe('compareBooks', () => {
  const row = (n: number, over: Record<string, unknown> = {}) => {
    const f = fill(n, over)
    return {
      trade_id: f.tradeId,
      order_id: f.orderId,
      ts: f.ts,
      iid: f.iid,
      side: f.side,
      price: f.price,
      qty: f.qty,
      fee: f.fee,
      realized_pnl: f.realizedPnl,
      liquidation: 0,
    }
  }
  it('names each fill missing, extra or different, and funding alike; totals per instrument', () => {
    const r = compareBooks(
      {
        fills: [row(1), row(2, { price: '99' }), row(4)],
        funding: [{ key: 'id:1', ts: T0, iid: 1, size: '1', amount: '0.5' }],
      },
      {
        fills: [fill(1), fill(2), fill(3)],
        funding: [
          { key: 'id:1', iid: 1, size: '1', rate: '0.1', asset: 'USDC', amount: '0.6', ts: T0 },
          { key: 'id:2', iid: 2, size: '1', rate: '0.1', asset: 'USDC', amount: '1', ts: T0 + 1 },
        ],
      },
    )
    expect(r.differences.map((d) => `${d.table} ${d.problem} ${d.key}`)).toEqual([
      `fills differs trade t2 / order 1002 at ${new Date(T0 + 2_000).toISOString()}`,
      `fills missing from the journal trade t3 / order 1003 at ${new Date(T0 + 3_000).toISOString()}`,
      `fills not at the venue trade t4 / order 1004 at ${new Date(T0 + 4_000).toISOString()}`,
      `funding differs funding id:1 at ${new Date(T0).toISOString()}`,
      `funding missing from the journal funding id:2 at ${new Date(T0 + 1).toISOString()}`,
    ])
    expect(r.differences[0]?.detail).toBe('journal ≠ venue: price 99 ≠ 100.5')
    expect(r.venue.map((t) => t.fills)).toEqual([1, 2])
  })
})

describe('comparePositions', () => {
  it('names each instrument whose position differs from the venue’s, or that the journal cannot say', () => {
    expect(
      comparePositions(
        new Map([
          [1, '0.5'],
          [2, '0'],
          [3, undefined],
        ]),
        [
          { instrument_id: 1, size: '0.50' },
          { instrument_id: 4, size: '-1' },
        ],
      ),
    ).toEqual([
      { iid: 3, journal: undefined, venue: '0' },
      { iid: 4, journal: '0', venue: '-1' },
    ])
  })
})

describe('perpbot report --live --check against the venue (the standalone mock)', () => {
  let mock: RunningMock
  let dir = ''
  let overlay = ''
  const env: Record<string, string> = {}
  let venue = ''
  beforeAll(async () => {
    mock = await startMockServer({ port: 0, seed: 3, catalogue: { eventCount: 5 } })
    dir = mkdtempSync(join(tmpdir(), 'perpbot-check-'))
    overlay = join(dir, 'overlay.json')
    writeFileSync(overlay, JSON.stringify({ ops: { stateDir: join(dir, 'state') } }))
    const proxy = await perpbot(['create-proxy', '--live', '--expiry-days', '30'], {
      PERPS_URL: mock.url,
      PERPS_OWNER_PRIVATE_KEY: OWNER_PK,
    })
    for (const l of proxy.out.split('\n')) {
      const m = /^(PERPS_PROXY_PRIVATE_KEY|PERPS_PROXY_SECRET)=(\S+)$/.exec(l)
      if (m?.[1] !== undefined && m[2] !== undefined) env[m[1]] = m[2]
    }
    env.PERPS_URL = mock.url
    const client = createPerpsClient({ baseUrl: mock.url, clock: systemClock, random: systemRandom })
    venue = domainVenue(perpsDomainFromExchangeInfo(await client.getExchange()))
    await client.close()
  }, 30_000)
  afterAll(async () => {
    await mock.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('a journal that matches exits 0; a fill the venue never reported is named, exit 1', async () => {
    const db = await openJournalDb({ kind: 'sqlite', path: join(dir, 'state', 'journal-live.sqlite') })
    const clock = new SimulatedClock()
    clock.set(Date.now() - 3_600_000)
    const journal = createJournal({
      db,
      clock,
      settings: JournalSettings.parse({}),
      run: { version: 't', mode: 'live', configHash: 'h' },
      account: viemOwner.address,
      venue,
    })
    await journal.flush()
    const ok = await perpbot(['report', '--live', '--check', '--config', overlay, '--since', '2h'], env)
    expect(ok.err).toBe('')
    expect(ok.out).toContain(`account ${viemOwner.address.toLowerCase()} on ${venue}`)
    expect(ok.out).toContain('the journal matches the venue')
    expect(ok.code).toBe(0)

    journal.fill(fill(1, { ts: Date.now() - 600_000 }), 'stream')
    await journal.close('done')
    const bad = await perpbot(['report', '--live', '--check', '--config', overlay, '--since', '2h'], env)
    expect(bad.out).toMatch(/DIFF fills: not at the venue: trade t1 \/ order 1001 at /)
    // The fill with no snapshot: the journal cannot say the position, and says so.
    expect(bad.out).toContain('DIFF position #2: journal unknown (no snapshot), venue 0')
    expect(bad.out).toContain('2 difference(s) between the journal and the venue')
    expect(bad.code).toBe(1)
  }, 30_000)
})

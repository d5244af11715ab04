import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import { openJournalDb } from '../../src/journal/database.ts'
import { createJournal } from '../../src/journal/journal.ts'
import { SYMBOLS_STATE } from '../../src/journal/reading/reportQueries.ts'
import { JournalSettings } from '../../src/journal/settings.ts'
import { perpbot } from '../cli/perpbotCli.ts'

const ACCOUNT = `0x${'a'.repeat(40)}`
const OTHER = `0x${'b'.repeat(40)}`

describe('perpbot report', () => {
  let dir = ''
  let overlay = ''
  const now = Date.now()
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'perpbot-report-'))
    overlay = join(dir, 'overlay.json')
    writeFileSync(overlay, JSON.stringify({ ops: { stateDir: join(dir, 'state') } }))
    // A live run's journal, still open (the bot is running) while the report reads it.
    const db = await openJournalDb({ kind: 'sqlite', path: join(dir, 'state', 'journal-live.sqlite') })
    const clock = new SimulatedClock()
    clock.set(now - 3_600_000)
    // Another account's earlier run on the same database: never in this account's numbers.
    const other = createJournal({
      db,
      clock,
      settings: JournalSettings.parse({}),
      run: { version: 't', mode: 'live', configHash: 'h' },
      account: OTHER,
      venue: 'Polymarket/1/137',
    })
    other.fill(
      {
        tradeId: 9,
        orderId: 9,
        iid: 3,
        side: 'short',
        price: '2000',
        qty: '3',
        taker: true,
        fee: '60',
        feeAsset: 'USDC',
        realizedPnl: '-0.35',
        liquidation: false,
        ts: now - 2_000_000,
      },
      'stream',
    )
    await other.flush()
    clock.increment(1)
    const journal = createJournal({
      db,
      clock,
      settings: JournalSettings.parse({}),
      run: { version: 't', mode: 'live', configHash: 'h' },
      account: ACCOUNT,
      venue: 'Polymarket/1/137',
    })
    journal.saveState(SYMBOLS_STATE, { 3: 'ETH-PERP' })
    journal.fill(
      {
        tradeId: 1,
        orderId: 2,
        iid: 3,
        side: 'long',
        price: '2000',
        qty: '0.5',
        taker: false,
        fee: '-0.1',
        feeAsset: 'USDC',
        realizedPnl: '12.5',
        liquidation: false,
        ts: now - 1_800_000,
      },
      'stream',
    )
    // The mids the bot recorded at that fill, 1 s and 10 s after it; none at 60 s (it stopped first).
    for (const [horizonMs, mid] of [
      [0, '2000.5'],
      [1_000, '2001'],
      [10_000, '1999'],
    ] as const)
      journal.fillMid({
        tradeId: '1',
        orderId: 2,
        fillTs: now - 1_800_000,
        horizonMs,
        mid,
        at: now - 1_800_000 + horizonMs,
      })
    await journal.flush()
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('--help prints its usage', async () => {
    const r = await perpbot(['report', '--help'])
    expect(r.code).toBe(0)
    expect(r.out).toContain('usage: perpbot report')
  })

  it('reads the live journal as a table, csv and json while its writer has it open', async () => {
    const table = await perpbot(['report', '--live', '--config', overlay, '--by', 'instrument'])
    expect(table.err).toBe('')
    expect(table.code).toBe(0)
    expect(table.out).toContain(`account ${ACCOUNT} on Polymarket/1/137`)
    expect(table.out).toContain('net PnL USDC')
    expect(table.out).toMatch(/ETH-PERP\s+12\.60\s+12\.50\s+0\.00\s+-0\.10\s+0\.00\s+1000\.00\s+1\s+100%/)
    // One opening fill: no round trip yet (issue 39.3's line under the table).
    expect(table.out).toContain(
      "round trips (FIFO over the window's fills): 0, win rate n/a, profit factor n/a",
    )
    // Markouts in bps for us: bought at 2000, mid 2000.5 at the fill, 2001 at 1 s, 1999 at 10 s, no 60 s.
    expect(table.out).toMatch(
      /markouts\s+fills\s+captured bps\s+1 s bps\s+10 s bps\s+60 s bps\s+adverse sel\. bps/,
    )
    expect(table.out).toMatch(
      /ETH-PERP\s+1\s+\+2\.50 \(1\/1\)\s+\+5\.00 \(1\/1\)\s+-5\.00 \(1\/1\)\s+unknown \(0\/1\)\s+unknown \(0\/1\)\n/,
    )
    expect(table.out).toContain('positive = good for us')
    const csv = await perpbot(['report', '--live', '--config', overlay, '--format', 'csv', '--since', '2h'])
    expect(csv.out.split('\n')[0]).toBe(
      'key,net_pnl_usdc,realized_pnl_usdc,unrealized_pnl_change_usdc,fees_usdc,funding_usdc,volume_usdc,fills,maker_share,max_drawdown_usdc,quoting_hours,halted_hours,alerts_raised,alerts_resolved,opening_inventory_change_usdc,end_position,captured_bps,captured_fills_measured,markout_1s_bps,markout_1s_fills_measured,markout_10s_bps,markout_10s_fills_measured,markout_60s_bps,markout_60s_fills_measured,adverse_selection_bps,adverse_selection_fills_measured',
    )
    // No snapshot yet: the end position is unknown, not guessed from the fills.
    expect(csv.out).toContain('total,12.6,12.5,0,-0.1,0,1000,1,1,0,0,0,0,0,0,ETH-PERP ?,2.5,1,5,1,-5,1,,0,,0')
    const json = await perpbot(['report', '--live', '--config', overlay, '--format', 'json'])
    expect(JSON.parse(json.out)).toMatchObject({ account: ACCOUNT, currency: 'USDC' })
    expect(JSON.parse(json.out).total).toMatchObject({ netPnl: '12.6', fills: 1 })
    expect(JSON.parse(json.out).markouts.rows.at(-1)).toEqual({
      key: 'total',
      fills: 1,
      capturedBps: 2.5,
      capturedMeasured: 1,
      markouts: [
        { horizonMs: 1_000, bps: 5, measured: 1 },
        { horizonMs: 10_000, bps: -5, measured: 1 },
        { horizonMs: 60_000, bps: null, measured: 0 },
      ],
      adverseSelectionBps: null,
      adverseMeasured: 0,
    })
    // The other account reads only its own.
    const theirs = await perpbot([
      'report',
      '--live',
      '--config',
      overlay,
      '--format',
      'json',
      '--account',
      OTHER,
    ])
    expect(JSON.parse(theirs.out).total).toMatchObject({ netPnl: '-60.35', fills: 1 })
  })

  it('--trades: one CSV line per fill with its currency; --by run: one row per run', async () => {
    const trades = await perpbot(['report', '--live', '--config', overlay, '--trades'])
    expect(trades.code).toBe(0)
    const lines = trades.out.trim().split('\n')
    expect(lines[0]).toBe(
      'time,time_ms,instrument,side,price,qty,notional_usdc,fee_usdc,fee_asset,realized_pnl_usdc,liquidity,liquidation,trade_id,order_id,mid_at_fill,mid_1s,mid_10s,mid_60s,captured_bps,markout_1s_bps,markout_10s_bps,markout_60s_bps',
    )
    expect(lines).toHaveLength(2)
    expect(lines[1]).toBe(
      `${new Date(now - 1_800_000).toISOString()},${now - 1_800_000},ETH-PERP,buy,2000,0.5,1000,-0.1,USDC,12.5,maker,no,1,2,2000.5,2001,1999,,2.5,5,-5,`,
    )
    const runs = await perpbot(['report', '--live', '--config', overlay, '--by', 'run', '--format', 'json'])
    const body = JSON.parse(runs.out)
    expect(body.rows).toHaveLength(1)
    expect(body.rows[0]).toMatchObject({ fills: 1, netPnl: '12.6' })
  })

  it('the dry run has its own journal: none yet is a configuration error (exit 2) naming the file', async () => {
    const r = await perpbot(['report', '--config', overlay])
    expect(r.code).toBe(2)
    expect(r.err).toContain(`no journal at ${join(dir, 'state', 'journal-dry-run.sqlite')}`)
  })

  it('bad options exit 2 with a clear message', async () => {
    expect((await perpbot(['report', '--by', 'week'])).err).toContain('--by must be day, instrument or run')
    expect((await perpbot(['report', '--check'])).err).toContain('--check reads the live venue')
    expect((await perpbot(['report', '--live', '--account', 'me'])).code).toBe(2)
    expect((await perpbot(['report', '--since', 'yesterday'])).code).toBe(2)
    expect((await perpbot(['report', '--format', 'xml'])).code).toBe(2)
  })

  it('an unreachable DATABASE_URL is exit 2 without the password', async () => {
    const r = await perpbot(['report', '--live', '--config', overlay], {
      DATABASE_URL: 'postgres://bot:pw-never-shown@127.0.0.1:1/perpbot',
    })
    expect(r.code).toBe(2)
    expect(r.err).toContain('postgres://bot:***@127.0.0.1:1/perpbot')
    expect(r.err).not.toContain('pw-never-shown')
  })
})

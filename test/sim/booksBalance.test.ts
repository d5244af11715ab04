/**
 * The books balance, as a property (issue 33, point 6): after a soak-like run (calm, 4 instruments), a
 * fault run (the `flaky` scenario: 5xx on commands, 429 bursts, timeouts and garbled reads) and the
 * liquidation scenario, the bot's ledger and its journal equal the mock's account to the last decimal:
 * position per instrument, realized PnL, fees and funding. The real bot against the real mock on the
 * stepped clock (src/sim/simulate/steppedAssembly.ts), started before 01:00 so the 01:00 funding falls
 * in the run (the calm and fault runs: 8 minutes from 00:56, 272 and 121 fills, where 15 minutes cost
 * twice the time for no other case). At the end the market is frozen (no more fills) and the bot given two minutes to read what is
 * left; then the three books are compared while it still runs.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { Alert } from '../../src/alerts/alert.ts'
import type { RunningBot } from '../../src/bot/startBot.ts'
import { resolveStrategies } from '../../src/bot/startup/resolveConfig.ts'
import { addDecimal, compareDecimal, subDecimal } from '../../src/decimal.ts'
import { openJournalDb } from '../../src/journal/database.ts'
import { createJournal } from '../../src/journal/journal.ts'
import { createLogger, SecretBag } from '../../src/logging/logger.ts'
import { generateInstruments } from '../../src/mock/perps/instruments.ts'
import type { Account } from '../../src/mock/perps/state.ts'
import { seededRandom } from '../../src/random.ts'
import { SIM_START_MS, simulationSettings } from '../../src/sim/simulate/runSimulation.ts'
import { createSteppedAssembly } from '../../src/sim/simulate/steppedAssembly.ts'

/** Per instrument id: position, realized PnL, fees, funding (decimal strings, canonical). */
type Books = Record<number, { position: string; realized: string; fees: string; funding: string }>

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

const canonical = (x: string): string => addDecimal('0', x)
const line = (b: Books, iid: number) => {
  b[iid] ??= { position: '0', realized: '0', fees: '0', funding: '0' }
  return b[iid]
}
/** Drops all-zero lines (an instrument the books never touched is flat and zero everywhere). */
const touched = (b: Books): Books =>
  Object.fromEntries(
    Object.entries(b)
      .filter(([, v]) => Object.values(v).some((x) => compareDecimal(x, '0') !== 0))
      .map(([k, v]) => [k, { ...v, position: canonical(v.position), realized: canonical(v.realized) }]),
  )

interface Run {
  scenario: string
  instruments: number
  minutes: number
  /** Minutes past the hour the run starts at (default 50: the 01:00 funding falls in the run). */
  fromMinute?: number | undefined
  overrides?: Record<string, unknown> | undefined
  /** After every clock step of the run (before the market is frozen). */
  onStep?: ((now: number, bot: RunningBot, account: Account) => void) | undefined
}

async function balance(o: Run) {
  const specs = generateInstruments(o.instruments, 1)
  const settings = simulationSettings(
    // Quoting tight (2 bps each side) for many fills in a short run.
    {
      configDir: 'config',
      strategy: 'index-peg',
      strategyParams: { halfSpreadBps: 2 },
      overrides: o.overrides,
    },
    specs,
  )
  const strategies = await resolveStrategies(settings)
  const assembly = createSteppedAssembly({
    seed: 7,
    scenario: o.scenario,
    startMs: SIM_START_MS + (o.fromMinute ?? 50) * 60_000,
    instruments: specs,
    settings,
  })
  const dir = mkdtempSync(join(tmpdir(), 'perpbot-books-'))
  dirs.push(dir)
  const db = await openJournalDb({ kind: 'sqlite', path: join(dir, 'journal.sqlite') })
  const journal = createJournal({
    db,
    clock: assembly.clock,
    settings: settings.journal,
    venue: 'per-run',
    run: { version: 'test', mode: 'simulate', configHash: o.scenario },
  })
  const alerts: Alert[] = []
  const secrets = new SecretBag()
  const bot = await assembly.startEngine({
    settings,
    logger: createLogger({
      level: 'warn',
      pretty: 'never',
      secrets,
      destination: { write: () => undefined },
    }),
    secretBag: secrets,
    strategies,
    random: seededRandom(9),
    ops: false,
    alertSinks: [{ send: (a) => alerts.push(a) }],
    journal,
  })
  try {
    const { exchange } = assembly.mock
    const owner = exchange.accountOf(bot.proxyAddress)?.owner
    if (owner === undefined) throw new Error('the bot has no account on the mock')
    const mockAccount = (): Account => {
      const a = exchange.synced().accounts.get(owner.toLowerCase())
      if (a === undefined) throw new Error('no mock account')
      return a
    }
    const onStep = o.onStep
    await assembly.run({
      endMs: assembly.clock.now() + o.minutes * 60_000,
      onStep: onStep && ((now) => onStep(now, bot, mockAccount())),
    })
    // No more fills: the mark stands still (post-only quotes never cross it), then two minutes for
    // the bot to read the last fills (every 15 s), funding (every 60 s) and the portfolio.
    for (const s of specs) exchange.setRegime(s.baseAsset, 'frozen')
    await assembly.run({ endMs: assembly.clock.now() + 2 * 60_000 })

    const venue: Books = {}
    const account = mockAccount()
    for (const f of account.fills) {
      const l = line(venue, f.iid)
      l.realized = addDecimal(l.realized, f.pnl)
      l.fees = addDecimal(l.fees, f.fee)
    }
    for (const c of account.funding) {
      const l = line(venue, c.instrument_id)
      l.funding = addDecimal(l.funding, c.funding)
    }
    for (const p of exchange.accountOf(owner)?.portfolio.positions ?? [])
      line(venue, p.instrument_id).position = p.size

    const ledger: Books = {}
    for (const i of bot.status().instruments) {
      const p = i.pnl
      if (p === undefined) continue
      Object.assign(line(ledger, i.id), {
        position: p.position,
        realized: p.realizedPnl,
        fees: p.fees,
        funding: p.funding,
      })
    }

    // The journal keeps fills and funding, not positions: its position is what its fills moved,
    // against what the mock's fills moved (a seeded position is no fill).
    await journal.flush()
    const journaled: Books = {}
    const moved: Books = {}
    for (const f of account.fills) {
      const l = line(moved, f.iid)
      l.position = f.side === 'long' ? addDecimal(l.position, f.qty) : subDecimal(l.position, f.qty)
      Object.assign(l, { realized: venue[f.iid]?.realized, fees: venue[f.iid]?.fees })
    }
    for (const [iid, v] of Object.entries(venue)) line(moved, Number(iid)).funding = v.funding
    for (const f of await db.db
      .selectFrom('fills')
      .select(['iid', 'side', 'qty', 'realized_pnl', 'fee'])
      .execute()) {
      const l = line(journaled, f.iid)
      l.position = f.side === 'long' ? addDecimal(l.position, f.qty) : subDecimal(l.position, f.qty)
      l.realized = addDecimal(l.realized, f.realized_pnl)
      l.fees = addDecimal(l.fees, f.fee)
    }
    for (const c of await db.db.selectFrom('funding').select(['iid', 'amount']).execute()) {
      const l = line(journaled, c.iid)
      l.funding = addDecimal(l.funding, c.amount)
    }
    return {
      venue: touched(venue),
      ledger: touched(ledger),
      moved: touched(moved),
      journaled: touched(journaled),
      fills: account.fills.length,
      liquidationFills: account.fills.filter((f) => f.liq).length,
      fundingRows: account.funding.length,
      alerts,
    }
  } finally {
    await assembly.stopBot(bot, 'test over').catch(() => undefined)
    await journal.close('test over')
    assembly.dispose()
  }
}

describe('the books balance: ledger and journal equal the mock account to the last decimal', () => {
  it('after a soak-like run (calm, 4 instruments, 8 minutes across a funding hour)', async () => {
    const r = await balance({ scenario: 'calm', instruments: 4, minutes: 8, fromMinute: 56 })
    if (process.env.PERPBOT_BOOKS_PRINT) console.log(JSON.stringify(r, null, 1))
    expect(r.fills).toBeGreaterThan(20)
    expect(r.fundingRows).toBeGreaterThan(0)
    expect(r.ledger).toEqual(r.venue)
    expect(r.journaled).toEqual(r.moved)
  }, 120_000)

  it('after a fault run (flaky: 5xx, 429 bursts, timeouts, garbled reads)', async () => {
    const r = await balance({ scenario: 'flaky', instruments: 3, minutes: 8, fromMinute: 56 })
    expect(r.fills).toBeGreaterThan(10)
    expect(r.ledger).toEqual(r.venue)
    expect(r.journaled).toEqual(r.moved)
  }, 120_000)

  it('after the liquidation scenario: the loss is seen at once, the instruments halt, the books balance', async () => {
    // The fills poller as it is while the stream serves fills (it stands down; the stepped clock has
    // no WebSocket): a liquidation's fills are never pushed, so only the liquidation watch reads them.
    const seen: { at: number; venueFills: number; ledgerFills: number }[] = []
    const late: string[] = []
    let wipedAt: number | undefined
    const r = await balance({
      scenario: 'liquidation',
      instruments: 2,
      minutes: 8,
      overrides: { 'polling.fillsMs': 30 * 60_000 },
      onStep: (now, bot, account) => {
        const liq = account.fills.filter((f) => f.liq)
        const status = bot.status()
        const applied = status.account.pnl?.liquidationFills ?? 0
        // Every liquidation fill reaches the ledger within a portfolio read (3 s) and a fills read.
        const due = liq.filter((f) => now - f.ts > 5_000).length
        if (applied < due) late.push(`${new Date(now).toISOString()}: ${applied} of ${due} liquidation fills`)
        seen.push({ at: now, venueFills: liq.length, ledgerFills: applied })
        // Wiped out (the bot reads the portfolio every 3 s): from then on, halted and flat.
        const wiped = account.collateral === 0n && account.positions.size === 0 && liq.length > 0
        if (wiped) wipedAt ??= now
        if (wipedAt !== undefined && now - wipedAt > 5_000) {
          for (const i of status.instruments)
            if (!(i.state.startsWith('halted') && /margin exhausted|liquidated/.test(i.reason ?? '')))
              late.push(
                `${new Date(now).toISOString()}: ${i.symbol} ${i.state} (${i.reason}) on a wiped account`,
              )
          // Flat: nothing unrealized.
          if (status.account.pnl?.unrealizedPnl !== '0')
            late.push(`unrealized ${status.account.pnl?.unrealizedPnl} on a flat account`)
        }
      },
    })
    expect(r.liquidationFills).toBeGreaterThan(0)
    expect(wipedAt).toBeDefined()
    expect(late).toEqual([])
    expect(seen.at(-1)?.ledgerFills).toBe(r.liquidationFills)
    expect(r.alerts.map((a) => a.title)).toEqual(
      expect.arrayContaining(['Account in liquidation', 'Margin exhausted']),
    )
    expect(r.alerts.filter((a) => a.title === 'Margin ratio back to normal')).toEqual([])
    expect(r.ledger).toEqual(r.venue)
    expect(r.journaled).toEqual(r.moved)
  }, 120_000)
})

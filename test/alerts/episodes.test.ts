/**
 * The one reading of alert episodes (src/alerts/episodes.ts), on the streams the account watch really
 * sends: every margin walk, liquidation with a wipe-out, and withdrawals. A stream read here the way
 * the dashboard and the soak read it must say what `/status` says (the watch's own level).
 */
import { describe, expect, it } from 'vitest'
import type { Alert } from '../../src/alerts/alert.ts'
import { EpisodeBook, episodeStep, openEpisodes } from '../../src/alerts/episodes.ts'
import { AccountWatch } from '../../src/bot/account/accountWatch.ts'
import type { Withdrawal } from '../../src/perps/schemas/account.ts'
import { WATCH as cfg, marginPortfolio as portfolio, withdrawalRow } from '../helpers/accountFixtures.ts'

const shown = (alerts: readonly Alert[]): string[] => openEpisodes(alerts).map((e) => `${e.key}:${e.level}`)

/** Feeds margin ratios to a fresh watch; after each: what the stream so far reads as open, and the watch's level. */
function marginWalk(ratios: readonly string[]): { open: string[]; level: string; steps: string[] }[] {
  const w = new AccountWatch(cfg)
  const book = new EpisodeBook()
  const stream: Alert[] = []
  return ratios.map((mm, i) => {
    const sent = w.observePortfolio(portfolio(mm), i + 1)
    stream.push(...sent)
    const steps = sent.map((a) => `${a.key}:${book.observe(a).step}`)
    return { open: shown(stream), level: w.snapshot().marginLevel, steps }
  })
}

describe('alert episodes, read one way', () => {
  it('ok → warning → critical → warning → ok: open at each level the watch is at', () => {
    const walk = marginWalk(['0.3', '0.55', '0.85', '0.74', '0.40'])
    expect(walk.map((s) => s.level)).toEqual(['ok', 'warning', 'critical', 'warning', 'ok'])
    expect(walk.map((s) => s.open)).toEqual([
      [],
      ['margin:warning'],
      ['margin:critical'],
      // The resolve of the critical says the warning goes on: the board does not go blank here.
      ['margin:warning'],
      [],
    ])
    expect(walk.flatMap((s) => s.steps)).toEqual([
      'margin:opened',
      'margin:escalated',
      'margin:lowered',
      'margin:closed',
    ])
  })

  it('ok → critical → ok: one raise, one resolve, nothing left open', () => {
    const walk = marginWalk(['0.85', '0.1'])
    expect(walk.map((s) => s.open)).toEqual([['margin:critical'], []])
    expect(walk.flatMap((s) => s.steps)).toEqual(['margin:opened', 'margin:closed'])
  })

  it('warning → critical → ok: the one resolve closes the warning under the critical too', () => {
    const walk = marginWalk(['0.55', '0.85', '0.1'])
    expect(walk.map((s) => s.open)).toEqual([['margin:warning'], ['margin:critical'], []])
    expect(walk.flatMap((s) => s.steps)).toEqual(['margin:opened', 'margin:escalated', 'margin:closed'])
  })

  it('a reader that joined after the raises learns the level from the lowering resolve alone', () => {
    const w = new AccountWatch(cfg)
    w.observePortfolio(portfolio('0.55'), 1)
    w.observePortfolio(portfolio('0.85'), 2)
    const down = w.observePortfolio(portfolio('0.74'), 3)
    expect(shown(down)).toEqual(['margin:warning'])
    expect(new EpisodeBook().observe(down[0] as Alert).step).toBe('stray')
  })

  it('liquidation and a wipe-out: each key its own episode, all closed once there is equity again', () => {
    const w = new AccountWatch(cfg)
    const stream: Alert[] = []
    const at = (mm: string, equity: string, liq: boolean, t: number): string[] => {
      stream.push(...w.observePortfolio(portfolio(mm, equity, liq), t))
      return shown(stream).sort()
    }
    expect(at('1.1', '1', true, 1)).toEqual(['liquidation:critical', 'margin:critical'])
    // Closed out: out of liquidation, equity gone; the margin episode holds its level.
    expect(at('0', '0', false, 2)).toEqual(['margin-exhausted:critical', 'margin:critical'])
    expect(at('0', '500', false, 3)).toEqual([])
    expect(openEpisodes(stream)).toEqual([])
  })

  it('withdrawals: pending too long then confirmed closes; a failure or removal is told once and leaves nothing open', () => {
    const w = new AccountWatch(cfg)
    const H = 3_600_000
    const stream: Alert[] = []
    const at = (rows: Withdrawal[], t: number): string[] => {
      stream.push(...w.observeWithdrawals(rows, t))
      return shown(stream).sort()
    }
    const pending = [
      withdrawalRow(1, 'pending'),
      withdrawalRow(2, 'pending'),
      withdrawalRow(3, 'pending', 2 * H),
    ]
    expect(at(pending, 2 * H)).toEqual(['withdrawal:1:warning', 'withdrawal:2:warning'])
    expect(
      at(
        [withdrawalRow(1, 'confirmed'), withdrawalRow(2, 'failed'), withdrawalRow(3, 'removed', 2 * H)],
        3 * H,
      ),
    ).toEqual([])
    // Told at critical, each once; the failure ended withdrawal 2's pending warning with it.
    expect(stream.filter((a) => a.severity === 'critical').map((a) => [a.key, a.title])).toEqual([
      ['withdrawal:2', 'Withdrawal failed'],
      ['withdrawal:3', 'Withdrawal removed'],
    ])
  })
})

describe('episodeStep', () => {
  const a = (severity: Alert['severity'], extra: Partial<Alert> = {}): Alert => ({
    key: 'k',
    severity,
    title: 't',
    message: 'm',
    at: 1,
    ...extra,
  })

  it('only a resolve lowers or ends an episode; a resolve’s own severity is not the level left', () => {
    expect(episodeStep(undefined, a('warning'))).toEqual({
      step: 'opened',
      before: undefined,
      after: 'warning',
    })
    expect(episodeStep('warning', a('critical'))).toMatchObject({ step: 'escalated', after: 'critical' })
    expect(episodeStep('critical', a('warning'))).toMatchObject({ step: 'repeated', after: 'critical' })
    expect(episodeStep('critical', a('critical'))).toMatchObject({ step: 'repeated', after: 'critical' })
    // A resolve told at info (post-only, stream auth) closes a warning or critical episode all the same.
    expect(episodeStep('critical', a('info', { resolved: true }))).toMatchObject({
      step: 'closed',
      after: undefined,
    })
    expect(episodeStep('critical', a('critical', { resolved: true, remaining: 'warning' }))).toMatchObject({
      step: 'lowered',
      after: 'warning',
    })
  })

  it('a final raise (a fact told once) leaves nothing open, and ends what its key had open', () => {
    expect(episodeStep(undefined, a('critical', { final: true }))).toEqual({
      step: 'told',
      before: undefined,
      after: undefined,
    })
    expect(episodeStep('warning', a('critical', { final: true }))).toEqual({
      step: 'closed',
      before: 'warning',
      after: undefined,
    })
  })

  it('a resolve of nothing, or one that lowers nothing, is stray', () => {
    expect(episodeStep(undefined, a('warning', { resolved: true }))).toMatchObject({
      step: 'stray',
      after: undefined,
    })
    expect(episodeStep('warning', a('critical', { resolved: true, remaining: 'warning' }))).toMatchObject({
      step: 'stray',
      after: 'warning',
    })
  })

  it('open episodes come most recently touched first', () => {
    const stream = [
      a('warning', { key: 'x', at: 1 }),
      a('warning', { key: 'y', at: 2 }),
      a('critical', { key: 'x', at: 3 }),
    ]
    expect(openEpisodes(stream).map((e) => [e.key, e.level, e.since])).toEqual([
      ['x', 'critical', 1],
      ['y', 'warning', 2],
    ])
  })
})

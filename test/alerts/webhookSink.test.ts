import { describe, expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import type { Alert } from '../../src/alerts/alert.ts'
import { fanOut } from '../../src/alerts/alert.ts'
import { webhookPayload } from '../../src/alerts/webhookPayload.ts'
import { createWebhookAlertSink, type WebhookPoster } from '../../src/alerts/webhookSink.ts'
import { AccountWatch } from '../../src/bot/account/accountWatch.ts'
import { createLogger } from '../../src/logging/logger.ts'
import { seededRandom } from '../../src/random.ts'
import { marginPortfolio as margin, WATCH } from '../helpers/accountFixtures.ts'

const alert = (over: Partial<Alert> = {}): Alert => ({
  key: 'margin',
  severity: 'critical',
  title: 'Account in liquidation',
  message: 'in_liquidation is true',
  details: { marginRatio: 1.2 },
  at: 1_767_000_000_000,
  ...over,
})

describe('webhookPayload', () => {
  it('builds each format', () => {
    expect(webhookPayload(alert(), 'slack')).toEqual({
      text: expect.stringContaining('CRITICAL: Account in liquidation'),
    })
    const discord = webhookPayload(alert(), 'discord') as { content: string; embeds: { color: number }[] }
    expect(discord.content).toContain('CRITICAL')
    expect(discord.embeds[0]?.color).toBe(0xe74c3c)
    expect(webhookPayload(alert(), 'telegram', '42')).toMatchObject({ chat_id: '42' })
    expect(webhookPayload(alert({ resolved: true }), 'generic')).toMatchObject({
      resolved: true,
      key: 'margin',
    })
  })

  it('a resolve that leaves the episode open at a lower level says so in the generic payload', () => {
    const lowered = alert({ resolved: true, remaining: 'warning' })
    expect(webhookPayload(lowered, 'generic')).toMatchObject({ resolved: true, remaining: 'warning' })
    expect(webhookPayload(alert({ resolved: true }), 'generic')).not.toHaveProperty('remaining')
    expect(webhookPayload(alert(), 'generic')).not.toHaveProperty('remaining')
    const colour = (a: Alert) =>
      (webhookPayload(a, 'discord') as { embeds: { color: number }[] }).embeds[0]?.color
    expect(colour(lowered)).toBe(0xf1c40f)
    expect(colour(alert({ resolved: true }))).toBe(0x2ecc71)
  })
})

/** Lets promise chains run (the sink's timers are on the simulated clock, its posts are promises). */
async function settle(): Promise<void> {
  for (let i = 0; i < 50; i++) await Promise.resolve()
}

function setup(
  over: {
    post?: WebhookPoster
    retries?: number
    maxPerMinute?: number
    format?: 'generic' | 'slack'
    minSeverity?: 'warning' | 'critical'
  } = {},
) {
  const calls: unknown[] = []
  const logs: string[] = []
  const clock = new SimulatedClock()
  const sink = createWebhookAlertSink({
    url: 'http://127.0.0.1:9/hook',
    mode: 'live',
    format: over.format ?? 'generic',
    minSeverity: over.minSeverity ?? 'warning',
    maxPerMinute: over.maxPerMinute ?? 20,
    retries: over.retries ?? 3,
    timeoutMs: 1000,
    clock,
    random: seededRandom(1),
    logger: createLogger({ destination: { write: (l: string) => void logs.push(l) }, pretty: 'never' }),
    post:
      over.post ??
      (async (_u, b) => {
        calls.push(b)
        return 200
      }),
  })
  return { sink, calls, logs, clock }
}

describe('createWebhookAlertSink', () => {
  it('retries a failing webhook with back-off and never throws into the caller', async () => {
    const calls: unknown[] = []
    let failures = 2
    const { sink, clock } = setup({
      post: async (_url, body) => {
        calls.push(body)
        if (failures-- > 0) throw new Error('ECONNRESET')
        return 200
      },
    })
    expect(() => sink.send(alert())).not.toThrow()
    for (let i = 0; i < 10 && sink.stats().delivered === 0; i++) {
      await settle()
      clock.increment(2_000)
    }
    expect(sink.stats()).toMatchObject({ delivered: 1, failed: 0 })
    expect(calls).toHaveLength(3)
  })

  it('coalesces a burst into one message instead of dropping, critical first', async () => {
    const { sink, calls, clock } = setup({ maxPerMinute: 20 })
    sink.send(alert({ key: 'a', severity: 'warning', title: 'first' }))
    await settle()
    clock.increment(0)
    await settle()
    expect(calls).toHaveLength(1)
    // 40 more within the 3 s gap: one message carrying all of them.
    for (let i = 0; i < 39; i++) sink.send(alert({ key: `w${i}`, severity: 'warning', title: `w${i}` }))
    sink.send(alert({ key: 'c', severity: 'critical', title: 'liquidation' }))
    clock.increment(3_000)
    await settle()
    expect(calls).toHaveLength(2)
    const body = calls[1] as { title: string; severity: string; message: string }
    expect(body).toMatchObject({ title: '40 alerts', severity: 'critical' })
    expect(body.message.split('\n')[0]).toContain('CRITICAL: liquidation')
    expect(body.message).toContain('and 20 more')
    expect(sink.stats()).toMatchObject({ delivered: 41, messages: 2, coalesced: 40, failed: 0 })
  })

  it('delivers what is queued at shutdown at once, within the budget', async () => {
    const { sink, calls, clock } = setup({ maxPerMinute: 1 })
    sink.send(alert({ key: 'a' }))
    clock.increment(0)
    await settle()
    sink.send(alert({ key: 'b' })) // would wait a minute for its turn
    await sink.flush?.(1_000)
    expect(calls).toHaveLength(2)
  })

  it('logs at error level, with the alerts, what it could not deliver', async () => {
    const { sink, logs, clock } = setup({ retries: 1, post: async () => 503 })
    sink.send(alert({ key: 'x', title: 'Withdrawal failed' }))
    for (let i = 0; i < 5; i++) {
      clock.increment(2_000)
      await settle()
    }
    expect(sink.stats().failed).toBe(1)
    const line = logs.find((l) => l.includes('could not deliver'))
    expect(line).toContain('"level":50')
    expect(line).toContain('Withdrawal failed')
    expect(line).toContain('HTTP 503')
  })

  it('reports alerts still undelivered when the shutdown budget runs out', async () => {
    const { sink, logs, clock } = setup({ post: () => new Promise<number>(() => undefined) })
    sink.send(alert({ title: 'stuck' }))
    clock.increment(0)
    await settle()
    const flushed = sink.flush?.(500)
    clock.increment(500)
    await flushed
    expect(logs.some((l) => l.includes('shutdown budget') && l.includes('stuck'))).toBe(true)
  })

  it('filters below the minimum severity but always sends resolutions', async () => {
    const { sink, calls } = setup({ format: 'slack' })
    sink.send(alert({ severity: 'info' }))
    sink.send(alert({ severity: 'info', resolved: true }))
    await sink.flush?.(1000)
    expect(calls).toHaveLength(1)
  })

  it('a critical-only subscriber hears the margin critical, and that it is over (the warning goes on)', async () => {
    const { sink, calls, clock } = setup({ format: 'slack', minSeverity: 'critical' })
    const watch = new AccountWatch(WATCH)
    for (const [k, mm] of ['0.55', '0.85', '0.74', '0.40'].entries()) {
      for (const a of watch.observePortfolio(margin(mm), k)) sink.send(a)
      clock.increment(10_000)
      await settle()
    }
    expect(calls.map((c) => (c as { text: string }).text.split('\n')[0])).toEqual([
      '🚨 CRITICAL: Margin ratio critical',
      '✅ RESOLVED: Margin ratio below critical',
      '✅ RESOLVED: Margin ratio back to normal',
    ])
  })

  it('a throwing sink does not stop the others', () => {
    const got: Alert[] = []
    const sink = fanOut([
      {
        send: () => {
          throw new Error('boom')
        },
      },
      { send: (a) => got.push(a) },
    ])
    sink.send(alert())
    expect(got).toHaveLength(1)
  })
})

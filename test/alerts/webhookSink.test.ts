import { describe, expect, it, vi } from 'vitest'
import { SimulatedClock } from 'xstate'
import type { Alert } from '../../src/alerts/alert.ts'
import { fanOut } from '../../src/alerts/alert.ts'
import { webhookPayload } from '../../src/alerts/webhookPayload.ts'
import { createWebhookAlertSink, type WebhookPoster } from '../../src/alerts/webhookSink.ts'
import { createLogger } from '../../src/logging/logger.ts'
import { seededRandom } from '../../src/random.ts'

const alert = (over: Partial<Alert> = {}): Alert => ({
  key: 'margin',
  severity: 'critical',
  title: 'Account in liquidation',
  message: 'in_liquidation is true',
  details: { marginRatio: 1.2 },
  at: 1_767_000_000_000,
  ...over,
})

const silent = createLogger({ destination: { write: () => undefined }, pretty: 'never' })

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
})

describe('createWebhookAlertSink', () => {
  it('retries a failing webhook and never throws into the caller', async () => {
    const calls: unknown[] = []
    let failures = 2
    const post: WebhookPoster = async (_url, body) => {
      calls.push(body)
      if (failures-- > 0) throw new Error('ECONNRESET')
      return 200
    }
    const clock = new SimulatedClock()
    const sink = createWebhookAlertSink({
      url: 'http://127.0.0.1:9/hook',
      format: 'generic',
      minSeverity: 'warning',
      maxPerMinute: 600,
      retries: 3,
      timeoutMs: 1000,
      clock,
      random: seededRandom(1),
      logger: silent,
      post,
    })
    expect(() => sink.send(alert())).not.toThrow()
    // Bottleneck dispatches on its own (real) timers; poll for the outcome while advancing the
    // simulated clock through the retry backoffs.
    await vi.waitFor(
      () => {
        clock.increment(2_000)
        expect(sink.stats()).toMatchObject({ delivered: 1, failed: 0 })
      },
      { timeout: 5_000, interval: 5 },
    )
    expect(calls).toHaveLength(3)
  })

  it('filters below the minimum severity but always sends resolutions', async () => {
    const calls: unknown[] = []
    const sink = createWebhookAlertSink({
      url: 'http://127.0.0.1:9/hook',
      format: 'slack',
      minSeverity: 'critical',
      maxPerMinute: 600,
      retries: 0,
      timeoutMs: 1000,
      clock: new SimulatedClock(),
      random: seededRandom(1),
      logger: silent,
      post: async (_u, b) => {
        calls.push(b)
        return 200
      },
    })
    sink.send(alert({ severity: 'warning' }))
    sink.send(alert({ severity: 'warning', resolved: true }))
    await vi.waitFor(() => expect(calls).toHaveLength(1), { timeout: 5_000, interval: 5 })
    await sink.flush?.(1000)
    expect(calls).toHaveLength(1)
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

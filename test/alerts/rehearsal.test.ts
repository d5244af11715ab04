/**
 * A dry run never pages: the webhook sink against a real loopback HTTP receiver. Silent in a dry run
 * by default; with `inDryRun` every message (single or coalesced, every format) says REHEARSAL in its
 * title and `mode: "dry-run"` in the generic payload; a live run's messages carry `mode: "live"`.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import type { Alert } from '../../src/alerts/alert.ts'
import { type AlertMode, REHEARSAL_PREFIX } from '../../src/alerts/rehearsal.ts'
import { createWebhookAlertSink } from '../../src/alerts/webhookSink.ts'
import { systemClock } from '../../src/clock.ts'
import { createLogger } from '../../src/logging/logger.ts'
import { seededRandom } from '../../src/random.ts'
import { Settings } from '../../src/settings/schema.ts'

const liquidation: Alert = {
  key: 'margin',
  severity: 'critical',
  title: 'Account in liquidation',
  message: 'The venue reports the account in liquidation.',
  at: 1_767_000_000_000,
}

interface Receiver {
  url: string
  bodies: Record<string, unknown>[]
  close(): Promise<void>
}

async function receiver(): Promise<Receiver> {
  const bodies: Record<string, unknown>[] = []
  const server: Server = createServer((req, res) => {
    let raw = ''
    req.setEncoding('utf8')
    req.on('data', (c: string) => {
      raw += c
    })
    req.on('end', () => {
      bodies.push(JSON.parse(raw) as Record<string, unknown>)
      res.writeHead(204).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hook`,
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

const open: Receiver[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((r) => r.close()))
})

async function deliver(
  mode: AlertMode,
  opts: { inDryRun?: boolean; format?: 'generic' | 'slack' | 'discord' | 'telegram'; alerts?: Alert[] },
) {
  const r = await receiver()
  open.push(r)
  const logs: string[] = []
  const sink = createWebhookAlertSink({
    url: r.url,
    mode,
    inDryRun: opts.inDryRun,
    format: opts.format ?? 'generic',
    telegramChatId: '42',
    minSeverity: 'warning',
    maxPerMinute: 20,
    retries: 0,
    timeoutMs: 2_000,
    clock: systemClock,
    random: seededRandom(1),
    logger: createLogger({ destination: { write: (l: string) => void logs.push(l) }, pretty: 'never' }),
  })
  for (const a of opts.alerts ?? [liquidation]) sink.send(a)
  await sink.flush?.(3_000)
  return { bodies: r.bodies, logs, stats: sink.stats() }
}

describe('alerts in a dry run', () => {
  it('the setting defaults to silent', () => {
    const s = Settings.parse({ instruments: [{ symbol: 'BTC-USDC', strategy: 'simple-spread' }] })
    expect(s.alerts.webhook.inDryRun).toBe(false)
  })

  it('posts nothing to the webhook in a dry run unless asked, and says so once', async () => {
    const { bodies, logs, stats } = await deliver('dry-run', {})
    expect(bodies).toEqual([])
    expect(stats.messages).toBe(0)
    expect(logs.filter((l) => l.includes('silent in a dry run'))).toHaveLength(1)
  })

  it('with inDryRun, the message says REHEARSAL in its title and mode in its payload', async () => {
    const { bodies } = await deliver('dry-run', { inDryRun: true })
    expect(bodies).toHaveLength(1)
    expect(bodies[0]).toMatchObject({
      mode: 'dry-run',
      severity: 'critical',
      title: `${REHEARSAL_PREFIX}Account in liquidation`,
    })
  })

  it('marks a coalesced burst too', async () => {
    const burst = Array.from({ length: 5 }, (_, k): Alert => ({ ...liquidation, key: `k${k}` }))
    const { bodies } = await deliver('dry-run', { inDryRun: true, alerts: burst })
    expect(bodies.length).toBeGreaterThan(0)
    for (const b of bodies) {
      expect(b.mode).toBe('dry-run')
      expect(String(b.title)).toMatch(/^REHEARSAL/)
    }
  })

  it.each(['slack', 'discord', 'telegram'] as const)('marks the %s text', async (format) => {
    const { bodies } = await deliver('dry-run', { inDryRun: true, format })
    expect(bodies).toHaveLength(1)
    const text = JSON.stringify(bodies[0])
    expect(text).toContain('REHEARSAL')
    expect(text).toContain('mode: dry-run')
  })

  it('a live run posts unmarked, with mode live', async () => {
    const { bodies } = await deliver('live', {})
    expect(bodies).toHaveLength(1)
    expect(bodies[0]).toMatchObject({ mode: 'live', title: 'Account in liquidation' })
  })
})

/**
 * Issue 34, point 3: one scrubber at every exit. Every configured secret — the proxy key and secret
 * and the owner key (made at the start of a dry run), the ops token, the webhook URL's password and
 * token, the database's and Redis's passwords — is planted in an error a strategy throws; the real
 * bot (startBot over loopback against the mock) then shows that error everywhere it shows anything:
 * the log, `/status`, `/readyz`, `/metrics`, `/events`, the webhook's bodies, the journal's alerts
 * table. None of them holds any secret in any form the scrubber knows; each holds the error's
 * marker, so each exit was reached.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { openJournalDb } from '../../src/journal/database.ts'
import { createJournal } from '../../src/journal/journal.ts'
import { JournalSettings } from '../../src/journal/settings.ts'
import { type BotOnMock, startBotOnMock } from '../../src/sim/botOnMock.ts'

const MARKER = 'planted-secret-error'
const OPS_TOKEN = 'ops-token-0123456789abcdef'
const WEBHOOK_PASSWORD = 'wh-pass-4242x'
const WEBHOOK_TOKEN = 'T0SECRETWEBHOOKTOKEN42'
const WEBHOOK_QUERY = 'querykeysecret99'
const DB_PASSWORD = 'db-pass-7777'
const REDIS_PASSWORD = 'redispw9'

/** Throws an error naming every secret in the global the test fills once the bot runs. */
const throwingStrategy = `
export const strategy = {
  name: 'leaky',
  description: 'throws an error that carries secrets',
  paramsSchema: { safeParse: () => ({ success: true, data: { positionCap: '1' } }) },
  quote() {
    const planted = globalThis.__perpbotPlanted
    if (planted !== undefined) throw new Error(planted)
    return []
  },
}
`

/** Each delivery: the path it was posted to, and its body. */
const hooks: { url: string; body: string }[] = []
let hookServer: Server | undefined
let run: BotOnMock | undefined
afterAll(async () => {
  Reflect.deleteProperty(globalThis, '__perpbotPlanted')
  await run?.stop('test over')
  await new Promise<void>((r) => (hookServer ? hookServer.close(() => r()) : r()))
})

describe('secrets at every exit (issue 34)', () => {
  it('a strategy error carrying every secret leaves none of them at any exit', async () => {
    hookServer = createServer((req, res) => {
      let body = ''
      req.on('data', (c: Buffer) => {
        body += c.toString('utf8')
      })
      req.on('end', () => {
        hooks.push({ url: req.url ?? '', body })
        res.end('ok')
      })
    })
    await new Promise<void>((r) => hookServer?.listen(0, '127.0.0.1', r))
    const hookPort = (hookServer.address() as AddressInfo).port
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-secrets-'))
    writeFileSync(join(dir, 'leaky.mjs'), throwingStrategy)
    const db = await openJournalDb({ kind: 'sqlite', path: join(dir, 'journal.sqlite') })
    const journal = createJournal({
      db,
      clock: { now: () => Date.now(), setTimeout, clearTimeout },
      settings: JournalSettings.parse({ flushMs: 100 }),
      run: { version: 't', mode: 'dry-run', configHash: 'h' },
    })
    const env = {
      PERPBOT_OPS_TOKEN: OPS_TOKEN,
      ALERT_WEBHOOK_URL: `http://hook:${WEBHOOK_PASSWORD}@127.0.0.1:${hookPort}/hooks/${WEBHOOK_TOKEN}/x?key=${WEBHOOK_QUERY}`,
      DATABASE_URL: `postgres://perpbot:${DB_PASSWORD}@127.0.0.1:1/perpbot`,
      FLEET_REDIS_URL: `redis://:${REDIS_PASSWORD}@127.0.0.1:1/0`,
    }
    const lines: string[] = []
    run = await startBotOnMock({
      mock: { seed: 34, scenario: 'calm', clock: 'real', catalogue: { eventCount: 5 } },
      env,
      ops: true,
      streams: false,
      journal,
      onLogLine: (l) => lines.push(l),
      overrides: {
        strategiesDir: dir,
        instruments: [{ symbol: 'BTC-USDC', strategy: 'leaky', params: {} }],
        'alerts.webhook.inDryRun': true,
        'alerts.webhook.retries': 0,
      },
    })
    const r = run
    // The generated proxy key and secret and the owner key are in the bag once the start made them.
    const generated = r.secrets.needles.filter(
      (n) => /^0x[0-9a-f]{64}$/.test(n) || /^[A-Za-z0-9_-]{32,}$/.test(n),
    )
    expect(generated.length).toBeGreaterThanOrEqual(3)
    const planted = [
      OPS_TOKEN,
      env.ALERT_WEBHOOK_URL,
      WEBHOOK_PASSWORD,
      WEBHOOK_TOKEN,
      WEBHOOK_QUERY,
      env.DATABASE_URL,
      DB_PASSWORD,
      env.FLEET_REDIS_URL,
      `:${REDIS_PASSWORD}@`,
      ...generated,
    ]
    Reflect.set(globalThis, '__perpbotPlanted', `${MARKER}: ${planted.join(' | ')}`)

    const opsUrl = r.bot.opsUrl ?? ''
    const auth = { authorization: `Bearer ${OPS_TOKEN}` }
    const get = async (path: string): Promise<string> =>
      (await fetch(`${opsUrl}${path}`, { headers: auth })).text()
    /** The event stream's first frames (the snapshot), then the connection is dropped. */
    const events = async (): Promise<string> => {
      const ctl = new AbortController()
      const res = await fetch(`${opsUrl}/events`, { headers: auth, signal: ctl.signal })
      const reader = res.body?.getReader()
      let text = ''
      while (reader && !text.includes(MARKER) && text.length < 4_000_000) {
        const { value, done } = await reader.read()
        if (done) break
        text += Buffer.from(value).toString('utf8')
      }
      ctl.abort()
      return text
    }
    await vi.waitFor(
      async () => {
        expect(await get('/status')).toContain(MARKER)
        expect(hooks.map((h) => h.body).join('\n')).toContain(MARKER)
      },
      { timeout: 30_000, interval: 250 },
    )
    await journal.flush()
    const alertRows = JSON.stringify(await db.db.selectFrom('alerts').selectAll().execute())
    const exits: Record<string, string> = {
      log: lines.join('\n'),
      '/status': await get('/status'),
      '/readyz': await get('/readyz'),
      '/metrics': await get('/metrics'),
      '/events': await events(),
      webhook: hooks.map((h) => h.body).join('\n'),
      'journal alerts': alertRows,
    }
    for (const [exit, text] of Object.entries(exits)) {
      if (exit !== '/metrics') expect(text, `${exit} shows the error`).toContain(MARKER)
      for (const secret of planted)
        expect(text.includes(secret), `${exit} holds ${secret.slice(0, 6)}…`).toBe(false)
    }
    // The webhook was called at its configured URL (its token in the path), the body scrubbed.
    expect(hooks.every((h) => h.url.startsWith(`/hooks/${WEBHOOK_TOKEN}/x?key=`))).toBe(true)
  }, 90_000)
})

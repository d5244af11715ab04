/**
 * The phone against a local stand-in of the Telegram Bot API on 127.0.0.1 (grammY's `apiRoot`): only
 * allowed chats are answered; commands go to the control part as `telegram chat <id>`; /stop waits
 * for /confirm; alerts at the configured severity, fills and the daily summary (on the stepped clock)
 * reach the chat; the token appears in no log line, even when the Bot API refuses it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import type { Alert } from '../../../src/alerts/alert.ts'
import type { ControlReply, ControlRequest } from '../../../src/bot/control/botControl.ts'
import { startTelegram, TELEGRAM_HELP, type TelegramPart } from '../../../src/bot/control/telegram.ts'
import { createSignal } from '../../../src/bot/shared/signal.ts'
import { ConfigError } from '../../../src/errors.ts'
import { createLogger, SecretBag } from '../../../src/logging/logger.ts'
import type { BotStatus } from '../../../src/ops/status.ts'
import { loadSettings } from '../../../src/settings/load.ts'
import { TelegramSettings } from '../../../src/settings/telegramSettings.ts'
import { startBotOnMock } from '../../../src/sim/botOnMock.ts'

const TOKEN = '123456789:AAFakeTokenForTheStandInOnly_abcdefghijk'
const ALLOWED = 42

interface Sent {
  chat_id: number
  text: string
}

/** The Bot API as grammY calls it: getMe, deleteWebhook, getUpdates (held until an update), sendMessage. */
async function standIn(o: { refuseToken?: boolean; failChat?: number } = {}) {
  const sent: Sent[] = []
  const updates: unknown[] = []
  let nextId = 1
  let wake: (() => void) | undefined
  const paths: string[] = []
  const answer = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(JSON.stringify(body))
  }
  const server: Server = createServer((req: IncomingMessage, res) => {
    let raw = ''
    req.on('data', (c: Buffer) => {
      raw += c.toString('utf8')
    })
    req.on('end', () => {
      const method = (req.url ?? '').split('/').pop() ?? ''
      paths.push(req.url ?? '')
      const body = raw === '' ? {} : (JSON.parse(raw) as Record<string, unknown>)
      if (!(req.url ?? '').startsWith(`/bot${TOKEN}/`) || o.refuseToken)
        return answer(res, 401, { ok: false, error_code: 401, description: 'Unauthorized' })
      switch (method) {
        case 'getMe':
          return answer(res, 200, {
            ok: true,
            result: { id: 1, is_bot: true, first_name: 'perpbot', username: 'perpbot_test_bot' },
          })
        case 'deleteWebhook':
          return answer(res, 200, { ok: true, result: true })
        case 'sendMessage': {
          const chat = Number(body.chat_id)
          if (chat === o.failChat)
            return answer(res, 500, { ok: false, error_code: 500, description: 'Internal Server Error' })
          sent.push({ chat_id: chat, text: String(body.text) })
          return answer(res, 200, {
            ok: true,
            result: {
              message_id: sent.length,
              date: 0,
              chat: { id: chat, type: 'private' },
              text: body.text,
            },
          })
        }
        case 'getUpdates': {
          const offset = Number(body.offset ?? 0)
          const reply = () => {
            const due = updates.filter((u) => (u as { update_id: number }).update_id >= offset)
            answer(res, 200, { ok: true, result: due })
          }
          if (
            Number(body.timeout ?? 0) === 0 ||
            updates.some((u) => (u as { update_id: number }).update_id >= offset)
          )
            return reply()
          const t = setTimeout(() => {
            wake = undefined
            reply()
          }, 500)
          wake = () => {
            clearTimeout(t)
            wake = undefined
            reply()
          }
          return
        }
        default:
          return answer(res, 404, { ok: false, error_code: 404, description: 'Not Found' })
      }
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  return {
    apiRoot: `http://127.0.0.1:${port}`,
    sent,
    paths,
    message(chat: number, text: string) {
      const command = text.split(' ')[0] ?? ''
      updates.push({
        update_id: nextId++,
        message: {
          message_id: nextId,
          date: 0,
          chat: { id: chat, type: 'private' },
          from: { id: chat, is_bot: false, first_name: 'trader' },
          text,
          entities: text.startsWith('/') ? [{ type: 'bot_command', offset: 0, length: command.length }] : [],
        },
      })
      wake?.()
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections()
        server.close(() => r())
      }),
  }
}

const status: BotStatus = {
  mode: 'dry-run',
  startedAt: 0,
  uptimeMs: 600_000,
  instruments: [
    {
      id: 1,
      symbol: 'BTC-USDC',
      state: 'active.normal.quoting',
      reason: 'margin within limits',
      mode: 'normal',
      openOrders: 4,
    },
  ],
  account: { currency: 'USDC', inLiquidation: false, pendingWithdrawals: 0, marginRatio: 0.01 },
  limiter: { budgets: {} },
  alerts: [],
}

let api: Awaited<ReturnType<typeof standIn>> | undefined
let part: TelegramPart | undefined
afterEach(async () => {
  await part?.stop()
  await api?.close()
  part = undefined
})

async function until(what: string, ok: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

async function phone(
  o: { refuseToken?: boolean; failChat?: number; settings?: Record<string, unknown> } = {},
) {
  api = await standIn(o)
  const lines: string[] = []
  const secrets = new SecretBag([TOKEN])
  const logger = createLogger({
    destination: { write: (l: string) => void lines.push(l) },
    pretty: 'never',
    secrets,
  })
  const runs: ControlRequest[] = []
  const alerts = createSignal<Alert>()
  const clock = new SimulatedClock()
  clock.set(Date.UTC(2026, 11, 6, 23, 0, 0))
  const fills: {
    tid: number
    oid: number
    iid: number
    side: string
    p: string
    qty: string
    taker: boolean
    fee: string
    pnl: string
    ts: number
  }[] = []
  part = await startTelegram({
    token: TOKEN,
    settings: TelegramSettings.parse({ allowedChatIds: [ALLOWED, 7], apiRoot: api.apiRoot, ...o.settings }),
    mode: 'live',
    clock,
    logger,
    control: {
      run: async (r): Promise<ControlReply> => {
        runs.push(r)
        return { ok: true, command: r.command, changed: true, message: `${r.command} done` }
      },
    },
    status: () => status,
    balance: async () => ({
      accountValue: '1000',
      initialMargin: '20',
      maintenanceMargin: '10',
      marginRatio: 0.01,
      collateral: 'pUSD',
    }),
    alerts,
    fills: () => fills,
    symbolOf: () => 'BTC-USDC',
  })
  return { api, lines, runs, alerts, clock, fills, part }
}

const to = (chat: number) => (api?.sent ?? []).filter((s) => s.chat_id === chat).map((s) => s.text)

describe('the Telegram bot against a stand-in Bot API', () => {
  it('answers allowed chats only, commands through the control part, /stop after /confirm', {
    timeout: 30_000,
  }, async () => {
    const p = await phone()
    expect(p.part.running).toBe(true)
    p.api.message(ALLOWED, '/help')
    await until('help', () => to(ALLOWED).length === 1)
    expect(to(ALLOWED)).toEqual([TELEGRAM_HELP])
    p.api.message(999, '/stop')
    p.api.message(ALLOWED, '/status')
    await until('status', () => to(ALLOWED).length === 2)
    expect(to(ALLOWED)[1]).toBe(
      'dry-run, up 10 min; margin ratio 1%\nBTC-USDC: active.normal.quoting, 4 order(s) — margin within limits',
    )
    expect(to(999)).toEqual([])
    expect(p.lines.some((l) => l.includes('ignoring chat 999'))).toBe(true)
    p.api.message(ALLOWED, '/pause btc-usdc')
    await until('pause', () => to(ALLOWED).length === 3)
    expect(p.runs).toEqual([{ command: 'pause', instrument: 'BTC-USDC', from: 'telegram chat 42' }])
    expect(to(ALLOWED)[2]).toBe('pause done')
    p.api.message(ALLOWED, '/stop')
    await until('the question', () => to(ALLOWED).length === 4)
    expect(to(ALLOWED)[3]).toBe('Stop the bot? Send /confirm within 60 s.')
    expect(p.runs).toHaveLength(1)
    p.api.message(ALLOWED, '/confirm')
    await until('stop', () => to(ALLOWED).length === 5)
    expect(p.runs.at(-1)).toEqual({ command: 'stop', instrument: undefined, from: 'telegram chat 42' })
    p.api.message(ALLOWED, '/balance')
    await until('balance', () => to(ALLOWED).length === 6)
    expect(to(ALLOWED)[5]).toBe(
      'account value 1,000.00 pUSD, initial margin 20.00 pUSD, maintenance margin 10.00 pUSD, margin ratio 1%',
    )
  })

  it('sends alerts at the severity, fills, and the daily summary at 00:00 UTC; a failing chat costs nothing else', {
    timeout: 30_000,
  }, async () => {
    const p = await phone({ failChat: 7, settings: { notifyFills: true } })
    p.alerts.emit({ key: 'x', severity: 'info', title: 'Quiet', message: 'no', at: 0 })
    p.alerts.emit({
      key: 'margin',
      severity: 'critical',
      title: 'Margin ratio critical',
      message: 'ratio 0.85',
      at: 0,
    })
    await until('the alert', () => to(ALLOWED).length === 1)
    expect(to(ALLOWED)).toEqual(['CRITICAL: Margin ratio critical\nratio 0.85'])
    p.fills.push({
      tid: 1,
      oid: 9,
      iid: 1,
      side: 'short',
      p: '57776',
      qty: '0.01',
      taker: false,
      fee: '0.07',
      pnl: '0',
      ts: 0,
    })
    p.clock.increment(5_000)
    await until('the fill', () => to(ALLOWED).length === 2)
    expect(to(ALLOWED)[1]).toBe('fill: sold 0.01 BTC-USDC @ 57776 (maker), fee 0.07, realized 0')
    p.clock.increment(3_600_000)
    await until('the summary', () => to(ALLOWED).length === 3)
    expect(to(ALLOWED)[2]).toMatch(/^daily summary 2026-12-07\n/)
    expect(
      p.lines.some((l) => l.includes('could not send to chat 7') && l.includes('Bot API 500 on sendMessage')),
    ).toBe(true)
  })

  it('never logs the token when the Bot API is unreachable', { timeout: 30_000 }, async () => {
    const p = await phone()
    await p.api.close()
    p.alerts.emit({ key: 'm', severity: 'critical', title: 'Margin ratio critical', message: 'x', at: 0 })
    await until('the failure line', () => p.lines.some((l) => l.includes('could not send to chat 42')))
    const text = p.lines.join('\n')
    expect(text).toContain('network error talking to the Bot API')
    expect(text).not.toContain(TOKEN.split(':')[1])
  })

  it('never logs the token, also when the Bot API refuses it', { timeout: 30_000 }, async () => {
    const p = await phone({ refuseToken: true })
    expect(p.part.running).toBe(false)
    expect(p.lines.join('\n')).toContain('the Bot API refused the bot')
    expect(p.lines.join('\n')).toContain('Bot API 401 on getMe: Unauthorized')
    expect(p.api.paths[0]).toContain(TOKEN)
    expect(p.lines.join('\n')).not.toContain(TOKEN)
    expect(p.lines.join('\n')).not.toContain(TOKEN.split(':')[1])
  })
})

describe('telegram settings', () => {
  const load = (env: Record<string, string>, overrides: Record<string, unknown> = {}) => {
    try {
      loadSettings({ configDir: 'config', mode: 'dry-run', env, overrides, needs: [] })
      return []
    } catch (e) {
      return e instanceof ConfigError ? e.issues : [String(e)]
    }
  }
  it('refuses a token without an allowed chat, and a malformed token without echoing it', () => {
    expect(load({ TELEGRAM_BOT_TOKEN: TOKEN })).toEqual([
      'telegram.allowedChatIds: TELEGRAM_BOT_TOKEN is set but no chat is allowed; list your chat id(s)',
    ])
    expect(load({ TELEGRAM_BOT_TOKEN: TOKEN }, { 'telegram.allowedChatIds': [42] })).toEqual([])
    const bad = load({ TELEGRAM_BOT_TOKEN: 'not-a-token-secret-value' }, { 'telegram.allowedChatIds': [42] })
    expect(bad.join('\n')).toContain('env TELEGRAM_BOT_TOKEN')
    expect(bad.join('\n')).not.toContain('not-a-token-secret-value')
  })
})

describe('the phone in the real bot', () => {
  it('answers /status and /balance from the running bot on the mock, and its token stays out of the log', {
    timeout: 60_000,
  }, async () => {
    const standin = await standIn()
    api = standin
    const lines: string[] = []
    const run = await startBotOnMock({
      mock: { seed: 7, scenario: 'calm', clock: 'accelerated', speed: 20, catalogue: { eventCount: 20 } },
      logLevel: 'info',
      env: { TELEGRAM_BOT_TOKEN: TOKEN },
      overrides: { 'telegram.allowedChatIds': [ALLOWED], 'telegram.apiRoot': standin.apiRoot },
      onLogLine: (l) => void lines.push(l),
    })
    try {
      await until('quoting', () => run.bot.status().instruments.every((i) => i.state.startsWith('active')))
      standin.message(ALLOWED, '/status')
      await until('status', () => to(ALLOWED).length === 1)
      expect(to(ALLOWED)[0]).toMatch(/^\[dry run\] dry-run, up \d+ min; margin ratio /)
      expect(to(ALLOWED)[0]).toContain('BTC-USDC: active.')
      expect(to(ALLOWED)[0]).toContain('protections: none configured')
      standin.message(ALLOWED, '/balance')
      await until('balance', () => to(ALLOWED).length === 2)
      expect(to(ALLOWED)[1]).toMatch(/^\[dry run\] account value [\d,.]+ pUSD, initial margin /)
      expect(lines.some((l) => l.includes('telegram: @perpbot_test_bot answers 1 chat(s)'))).toBe(true)
    } finally {
      await run.stop('test over')
    }
    expect(lines.join('\n')).not.toContain(TOKEN)
  })
})

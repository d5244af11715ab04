/**
 * The phone: a Telegram bot (grammY, long polling) that answers the allowed chats only —
 * /status /profit /daily /balance /pause /resume /stop /flatten /help — and tells them the alerts
 * (at `telegram.minSeverity` and above), optionally every fill, and a daily summary. /stop and
 * /flatten ask for /confirm within a minute. Commands go through the same control part as the CLI
 * and the dashboard (journaled as `telegram chat <id>`).
 *
 * The token is a secret: the caller registers it with the logger's scrubber, and nothing here puts it
 * in a message; errors are logged by their class and description only.
 */
import type { Context } from 'grammy'
import type { Alert } from '../../alerts/alert.ts'
import { heardAt } from '../../alerts/alert.ts'
import type { Clock } from '../../clock.ts'
import { controlLines } from '../../format/controlText.ts'
import { amount, percent } from '../../format/units.ts'
import { componentLogger, type Logger } from '../../logging/logger.ts'
import type { BotMode, BotStatus } from '../../ops/status.ts'
import type { TelegramSettings } from '../../settings/telegramSettings.ts'
import type { LedgerFill } from '../account/pnlLedger.ts'
import type { Signal } from '../shared/signal.ts'
import type { ControlCommand, ControlReply, ControlRequest } from './botControl.ts'

export const TELEGRAM_HELP = `perpbot commands:
/status — every instrument's state, the protections and holds
/profit — PnL since start (account and per instrument)
/daily — today's change of net PnL (UTC) against the daily loss limit
/balance — account value and margin
/pause [SYMBOL] — hold halted, orders cancelled
/resume [SYMBOL] — lift a pause (without a symbol also every protection halt)
/flatten [SYMBOL] — pause and close positions (asks /confirm)
/stop — stop the bot by its exit policy (asks /confirm)
/help — this list`

/** How long a /stop or /flatten waits for /confirm. */
export const CONFIRM_WINDOW_MS = 60_000
/** How often new fills are looked for (notifyFills). */
const FILL_POLL_MS = 5_000

export interface TelegramPart {
  /** Whether the Bot API accepted the token and polling runs. */
  readonly running: boolean
  stop(): Promise<void>
}

export interface Balance {
  accountValue: string
  initialMargin: string
  maintenanceMargin: string
  marginRatio: number | undefined
  collateral: string | undefined
}

export async function startTelegram(o: {
  token: string
  settings: TelegramSettings
  mode: BotMode
  clock: Clock
  logger: Logger
  control: { run(r: ControlRequest): Promise<ControlReply> }
  status: () => BotStatus
  balance: () => Promise<Balance | undefined>
  alerts: Pick<Signal<Alert>, 'subscribe'>
  fills: () => readonly LedgerFill[]
  symbolOf: (iid: number) => string
}): Promise<TelegramPart> {
  const log = componentLogger(o.logger, 'telegram')
  const allowed = new Set(o.settings.allowedChatIds)
  const prefix = o.mode === 'dry-run' ? '[dry run] ' : o.mode === 'paper' ? '[PAPER] ' : ''
  // Loaded only when a token is set: grammY costs ~100 ms of CPU to import, which every start paid.
  const { Bot } = await import('grammy')
  const bot = new Bot(o.token, { client: { apiRoot: o.settings.apiRoot } })
  const refused = new Set<number>()
  const pending = new Map<
    number,
    { command: ControlCommand; instrument: string | undefined; until: number }
  >()

  const say = async (chat: number, text: string): Promise<void> => {
    try {
      await bot.api.sendMessage(chat, `${prefix}${text}`.slice(0, 4_000))
    } catch (e) {
      log.warn({ chat, error: describeTelegramError(e) }, `telegram: could not send to chat ${chat}`)
    }
  }
  const tellAll = (text: string): void => {
    for (const chat of allowed) void say(chat, text)
  }

  // Only the allowed chats reach a command; others are told nothing (logged once per chat).
  bot.use(async (ctx, next) => {
    const chat = ctx.chat?.id
    if (chat !== undefined && allowed.has(chat)) return next()
    if (chat !== undefined && !refused.has(chat)) {
      refused.add(chat)
      log.warn({ chat }, `telegram: ignoring chat ${chat} (not in telegram.allowedChatIds)`)
    }
  })
  const arg = (ctx: Context): string | undefined => {
    const m = typeof ctx.match === 'string' ? ctx.match.trim() : ''
    return m === '' ? undefined : m.toUpperCase()
  }
  const run = async (
    ctx: Context,
    command: ControlCommand,
    instrument: string | undefined,
  ): Promise<void> => {
    const r = await o.control.run({ command, instrument, from: `telegram chat ${ctx.chat?.id ?? '?'}` })
    await ctx.reply(
      `${prefix}${r.ok ? '' : 'not done: '}${r.message}${r.lines ? `\n${r.lines.join('\n')}` : ''}`,
    )
  }
  const ask = async (ctx: Context, command: ControlCommand, instrument: string | undefined, what: string) => {
    const chat = ctx.chat?.id
    if (chat === undefined) return
    pending.set(chat, { command, instrument, until: o.clock.now() + CONFIRM_WINDOW_MS })
    await ctx.reply(`${prefix}${what}? Send /confirm within ${CONFIRM_WINDOW_MS / 1000} s.`)
  }

  bot.command(['help', 'start'], (ctx) => ctx.reply(TELEGRAM_HELP))
  bot.command('status', (ctx) => ctx.reply(`${prefix}${statusText(o.status())}`))
  bot.command('profit', (ctx) => ctx.reply(`${prefix}${profitText(o.status())}`))
  bot.command('daily', (ctx) => ctx.reply(`${prefix}${dailyText(o.status())}`))
  bot.command('balance', async (ctx) => ctx.reply(`${prefix}${balanceText(await o.balance())}`))
  bot.command('pause', (ctx) => run(ctx, 'pause', arg(ctx)))
  bot.command('resume', (ctx) => run(ctx, 'resume', arg(ctx)))
  bot.command('flatten', (ctx) => ask(ctx, 'flatten', arg(ctx), `Flatten ${arg(ctx) ?? 'every instrument'}`))
  bot.command('stop', (ctx) => ask(ctx, 'stop', undefined, 'Stop the bot'))
  bot.command('confirm', async (ctx) => {
    const chat = ctx.chat?.id ?? 0
    const p = pending.get(chat)
    pending.delete(chat)
    if (p === undefined || p.until < o.clock.now())
      return void (await ctx.reply(`${prefix}nothing to confirm`))
    await run(ctx, p.command, p.instrument)
  })
  bot.on('message', (ctx) => ctx.reply(`${prefix}unknown command; /help lists them`))
  bot.catch((e) => log.warn({ error: describeTelegramError(e.error) }, 'telegram: a command failed'))

  try {
    await bot.init()
  } catch (e) {
    log.error(
      { error: describeTelegramError(e) },
      'telegram: the Bot API refused the bot (check TELEGRAM_BOT_TOKEN); no phone',
    )
    return { running: false, stop: async () => undefined }
  }
  // Long polling; a failure after start is logged and polling ends (the bot trades on).
  const polling = bot
    .start({ drop_pending_updates: true, allowed_updates: ['message'] })
    .catch((e: unknown) => log.error({ error: describeTelegramError(e) }, 'telegram: polling stopped'))
  log.info(
    { chats: allowed.size, bot: bot.botInfo.username },
    `telegram: @${bot.botInfo.username} answers ${allowed.size} chat(s)`,
  )

  const unsubscribe = o.alerts.subscribe((a) => {
    if (a.key.startsWith('control:')) return
    if (!heardAt(a, o.settings.minSeverity)) return
    tellAll(`${a.resolved ? 'RESOLVED: ' : `${a.severity.toUpperCase()}: `}${a.title}\n${a.message}`)
  })
  const timers: unknown[] = []
  const seen = new Set(o.fills().map((f) => `${f.tid}:${f.oid}`))
  const pollFills = (): void => {
    for (const f of o.fills()) {
      const k = `${f.tid}:${f.oid}`
      if (seen.has(k)) continue
      seen.add(k)
      tellAll(
        `fill: ${f.side === 'long' ? 'bought' : f.side === 'short' ? 'sold' : f.side} ${f.qty} ${o.symbolOf(f.iid)} @ ${f.p} (${f.taker ? 'taker' : 'maker'}), fee ${f.fee}, realized ${f.pnl}`,
      )
    }
    timers[0] = o.clock.setTimeout(pollFills, FILL_POLL_MS)
  }
  if (o.settings.notifyFills) timers[0] = o.clock.setTimeout(pollFills, FILL_POLL_MS)
  const hour = o.settings.dailySummaryHourUtc
  const scheduleSummary = (): void => {
    if (hour === null) return
    const now = o.clock.now()
    const day = Math.floor(now / 86_400_000) * 86_400_000
    let at = day + hour * 3_600_000
    if (at <= now) at += 86_400_000
    timers[1] = o.clock.setTimeout(() => {
      const s = o.status()
      tellAll(`daily summary ${new Date(at).toISOString().slice(0, 10)}\n${dailyText(s)}\n${profitText(s)}`)
      scheduleSummary()
    }, at - now)
  }
  scheduleSummary()

  let stopped = false
  return {
    running: true,
    async stop() {
      if (stopped) return
      stopped = true
      unsubscribe()
      for (const t of timers) if (t !== undefined) o.clock.clearTimeout(t)
      await bot
        .stop()
        .catch((e: unknown) => log.warn({ error: describeTelegramError(e) }, 'telegram: stop failed'))
      await polling
    },
  }
}

/** An error from grammY by kind and description: never the request URL (it holds the token). */
export function describeTelegramError(e: unknown): string {
  // grammY's GrammyError (the API's answer) and HttpError (the network), read by their fields.
  if (e instanceof Error && 'error_code' in e && 'method' in e && 'description' in e)
    return `Bot API ${String(e.error_code)} on ${String(e.method)}: ${String(e.description)}`
  if (e instanceof Error && e.name === 'HttpError' && 'error' in e)
    return `network error talking to the Bot API (${errorName(e.error)})`
  return errorName(e)
}

const errorName = (e: unknown): string => (e instanceof Error ? e.name : typeof e)

export function statusText(s: BotStatus): string {
  const c = s.account.currency ?? 'USDC'
  const lines = [
    `${s.mode}, up ${Math.round(s.uptimeMs / 60_000)} min; margin ratio ${s.account.marginRatio === undefined ? 'unknown' : percent(s.account.marginRatio)}${s.account.inLiquidation ? ', IN LIQUIDATION' : ''}`,
    ...s.instruments.map(
      (i) => `${i.symbol}: ${i.state}, ${i.openOrders} order(s)${i.reason ? ` — ${i.reason}` : ''}`,
    ),
  ]
  if (s.account.pnl) lines.push(`net PnL since start ${amount(s.account.pnl.netPnl, c)}`)
  if (s.control) lines.push(...controlLines(s.control))
  return lines.join('\n')
}

export function profitText(s: BotStatus): string {
  const c = s.account.currency ?? 'USDC'
  const p = s.account.pnl
  if (p === undefined) return 'PnL: not known yet'
  const lines = [
    `PnL since start: net ${amount(p.netPnl, c)} = realized ${amount(p.realizedPnl, c)} + unrealized ${amount(p.unrealizedPnl, c)} − fees ${amount(p.fees, c)} − funding ${amount(p.funding, c)}; ${p.fills} fills, volume ${amount(p.volume, c)}`,
  ]
  for (const i of s.instruments)
    if (i.pnl)
      lines.push(
        `${i.symbol}: position ${i.pnl.position}, net ${amount(i.pnl.netPnl, c)}, ${i.pnl.fills} fills`,
      )
  return lines.join('\n')
}

export function dailyText(s: BotStatus): string {
  const c = s.control
  if (c === undefined) return 'today: not known'
  const loss = c.figures.dailyLoss
  const limit = c.limits.maxDailyLoss
  const change =
    loss === undefined ? 'unknown' : amount(loss.startsWith('-') ? loss.slice(1) : `-${loss}`, c.currency)
  return `today (UTC): net PnL change ${loss === '0' ? amount('0', c.currency) : change}${limit === undefined ? '' : ` (daily loss limit ${amount(limit, c.currency)})`}`
}

export function balanceText(b: Balance | undefined): string {
  if (b === undefined) return 'balance: not known yet'
  const u = b.collateral
  return `account value ${amount(b.accountValue, u)}, initial margin ${amount(b.initialMargin, u)}, maintenance margin ${amount(b.maintenanceMargin, u)}, margin ratio ${b.marginRatio === undefined ? 'unknown' : percent(b.marginRatio)}`
}

/**
 * The bot's phone, from the parts before it: nothing without TELEGRAM_BOT_TOKEN. The balance is the
 * account's margin as the actors last saw it, in the collateral the venue names.
 */
export async function startBotTelegram(o: {
  settings: { telegram: TelegramSettings; mode: BotMode }
  secrets: { TELEGRAM_BOT_TOKEN?: string | undefined }
  clock: Clock
  log: Logger
  control: { run(r: ControlRequest): Promise<ControlReply> }
  views: { status(): BotStatus }
  alerts: { readonly published: Pick<Signal<Alert>, 'subscribe'> }
  account: { recentFills(): readonly LedgerFill[] }
  actors: {
    readonly instruments: readonly { id: number; symbol: string }[]
    snapshotOf(id: number):
      | {
          context: {
            margin:
              | {
                  accountValue: string
                  initialMargin: string
                  maintenanceMargin: string
                  marginRatio: number
                }
              | undefined
          }
        }
      | undefined
  }
  perps: { getAssets(): Promise<readonly { asset: string }[]> }
}): Promise<TelegramPart | undefined> {
  const token = o.secrets.TELEGRAM_BOT_TOKEN
  if (token === undefined) return undefined
  let collateral: string | undefined
  return startTelegram({
    token,
    settings: o.settings.telegram,
    mode: o.settings.mode,
    clock: o.clock,
    logger: o.log,
    control: o.control,
    status: () => o.views.status(),
    alerts: o.alerts.published,
    fills: () => o.account.recentFills(),
    symbolOf: (iid) => o.actors.instruments.find((i) => i.id === iid)?.symbol ?? String(iid),
    balance: async () => {
      collateral ??= await o.perps
        .getAssets()
        .then((a) => a[0]?.asset)
        .catch(() => undefined)
      const m = o.actors.instruments
        .map((i) => o.actors.snapshotOf(i.id)?.context.margin)
        .find((x) => x !== undefined)
      return m === undefined
        ? undefined
        : {
            accountValue: m.accountValue,
            initialMargin: m.initialMargin,
            maintenanceMargin: m.maintenanceMargin,
            marginRatio: m.marginRatio,
            collateral,
          }
    },
  })
}

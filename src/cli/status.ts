/**
 * `perpbot status`: a one-shot account and margin view. By default it asks the running bot's ops
 * server (`/status`); with `--live` it reads the venue directly with the proxy credentials.
 */
import { parseArgs } from 'node:util'
import { marginRatio } from '../bot/account/marginRatio.ts'
import { systemClock } from '../clock.ts'
import { createHttpTransport } from '../http/transport.ts'
import { createPerpsClient } from '../perps/client/createPerpsClient.ts'
import { addressOfPrivateKey } from '../perps/signing/privateKey.ts'
import { systemRandom } from '../random.ts'
import { loadSettings } from '../settings/load.ts'
import { type CliContext, UsageError } from './context.ts'

export const STATUS_USAGE = `usage: perpbot status [--live] [--bot URL] [--json]
  One-shot view of the running bot (its ops server's /status), or with --live of the venue account
  directly (needs PERPS_URL, PERPS_PROXY_PRIVATE_KEY, PERPS_PROXY_SECRET).
  --bot URL   the bot's ops server (default http://127.0.0.1:<ops.port>)
  --json      print JSON instead of a table`

export async function statusCommand(ctx: CliContext): Promise<number> {
  const { values } = parseArgs({
    args: [...ctx.argv],
    options: {
      live: { type: 'boolean', default: false },
      bot: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  })
  if (values.help) {
    ctx.stdout(STATUS_USAGE)
    return 0
  }
  const { settings, secrets } = loadSettings({
    configDir: ctx.configDir,
    mode: values.live ? 'live' : 'dry-run',
    env: ctx.env,
    needs: ['perpsUrl', 'proxyCredentials'],
  })
  if (!values.live) {
    const url = values.bot ?? `http://127.0.0.1:${settings.ops.port}`
    const transport = createHttpTransport({ baseUrl: url, connectTimeoutMs: 2_000, headersTimeoutMs: 5_000 })
    try {
      // An ops server bound beyond loopback wants the token (PERPBOT_OPS_TOKEN) on /status.
      const token = secrets.PERPBOT_OPS_TOKEN
      const headers = token ? { authorization: `Bearer ${token}` } : undefined
      const res = await transport.request({ method: 'GET', path: '/status', headers })
      if (res.status !== 200) throw new UsageError(`the bot at ${url} answered ${res.status}`)
      if (values.json) ctx.stdout(res.text)
      else printBotStatus(ctx, JSON.parse(res.text) as BotStatusView)
      return 0
    } catch (e) {
      if (e instanceof UsageError) throw e
      throw new UsageError(
        `no running bot answers at ${url} (start one with \`npm start\`, or use --live to read the venue directly)`,
      )
    } finally {
      await transport.close()
    }
  }
  const key = secrets.PERPS_PROXY_PRIVATE_KEY
  const secret = secrets.PERPS_PROXY_SECRET
  const baseUrl = secrets.PERPS_URL ?? settings.perps.url
  if (!key || !secret || !baseUrl) {
    throw new UsageError('--live needs PERPS_URL, PERPS_PROXY_PRIVATE_KEY and PERPS_PROXY_SECRET')
  }
  const perps = createPerpsClient({
    baseUrl,
    clock: systemClock,
    random: systemRandom,
    credentials: { proxy: addressOfPrivateKey(key, 'PERPS_PROXY_PRIVATE_KEY'), secret },
    authHeaderNames: { proxy: settings.perps.proxyHeader, secret: settings.perps.secretHeader },
  })
  try {
    const [portfolio, orders, withdrawals] = await Promise.all([
      perps.getPortfolio(),
      perps.getOpenOrders(),
      perps.getWithdrawals({ status: 'pending' }),
    ])
    if (values.json) {
      ctx.stdout(
        JSON.stringify({ portfolio, openOrders: orders.length, pendingWithdrawals: withdrawals.data.length }),
      )
      return 0
    }
    const m = portfolio.margin
    ctx.stdout(`account value      ${m.total_account_value}`)
    ctx.stdout(`initial margin     ${m.total_initial_margin}`)
    ctx.stdout(`maintenance margin ${m.total_maintenance_margin}`)
    ctx.stdout(`margin ratio       ${marginRatio(portfolio).toFixed(4)}`)
    ctx.stdout(`withdrawable       ${portfolio.withdrawable}`)
    ctx.stdout(`in liquidation     ${portfolio.in_liquidation}`)
    ctx.stdout(`open orders        ${orders.length}`)
    ctx.stdout(`pending withdrawals ${withdrawals.data.length}`)
    for (const p of portfolio.positions) {
      ctx.stdout(
        `  ${p.symbol.padEnd(12)} size ${p.size.padStart(12)} entry ${p.entry_price} liq ${p.liquidation_price} upnl ${p.unrealized_pnl}`,
      )
    }
    return 0
  } finally {
    await perps.close()
  }
}

/** The parts of `/status` this command prints (the bot's BotStatus, as JSON). */
interface PnlView {
  fills: number
  volume: string
  realizedPnl: string
  unrealizedPnl: string
  fees: string
  funding: string
  netPnl: string
}
interface BotStatusView {
  mode: string
  uptimeMs: number
  instruments: {
    symbol: string
    state: string
    reason?: string
    openOrders: number
    quoteAgeMs?: number
    degraded?: string[]
    pnl?: PnlView & { position: string; entryPrice?: string }
  }[]
  account: {
    marginRatio?: number | string
    inLiquidation: boolean
    pendingWithdrawals: number
    pnl?: PnlView & { makerShare?: number }
  }
  alerts: { severity: string; title: string; resolved?: boolean }[]
}

const pnlLine = (p: PnlView): string =>
  `net ${p.netPnl} = realized ${p.realizedPnl} + unrealized ${p.unrealizedPnl} − fees ${p.fees} − funding ${p.funding}; ${p.fills} fills, volume ${p.volume}`

function printBotStatus(ctx: CliContext, s: BotStatusView): void {
  ctx.stdout(`mode ${s.mode}, up ${Math.round(s.uptimeMs / 1000)} s`)
  ctx.stdout(
    `margin ratio ${s.account.marginRatio ?? 'n/a'}, in liquidation ${s.account.inLiquidation}, pending withdrawals ${s.account.pendingWithdrawals}`,
  )
  if (s.account.pnl) {
    const share = s.account.pnl.makerShare
    ctx.stdout(
      `account PnL since start: ${pnlLine(s.account.pnl)}${share === undefined ? '' : `, maker ${(share * 100).toFixed(0)} %`}`,
    )
  }
  for (const i of s.instruments) {
    ctx.stdout(`  ${i.symbol.padEnd(12)} ${i.state.padEnd(28)} orders ${i.openOrders}  ${i.reason ?? ''}`)
    if (i.degraded && i.degraded.length > 0) ctx.stdout(`    degraded: ${i.degraded.join('; ')}`)
    if (i.pnl)
      ctx.stdout(
        `    position ${i.pnl.position}${i.pnl.entryPrice ? ` @ ${i.pnl.entryPrice}` : ''}; ${pnlLine(i.pnl)}`,
      )
  }
  for (const a of s.alerts.slice(-5))
    ctx.stdout(`  alert ${a.resolved ? 'resolved' : a.severity}: ${a.title}`)
}

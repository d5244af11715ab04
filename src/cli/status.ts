/**
 * `perpbot status`: a one-shot account and margin view. By default it asks the running bot's ops
 * server (`/status`); with `--live` it reads the venue directly with the proxy credentials.
 */
import { parseArgs } from 'node:util'
import { marginRatio } from '../bot/account/marginRatio.ts'
import { systemClock } from '../clock.ts'
import { loadFleetStatusConfig } from '../fleet/fleetEnv.ts'
import { formatFleetView, readFleetView } from '../fleet/fleetView.ts'
import { connectFleetRedis, parseFleetRedisUrl } from '../fleet/redisConnection.ts'
import { controlLines } from '../format/controlText.ts'
import { amount, percent, price, quantity } from '../format/units.ts'
import { createHttpTransport } from '../http/transport.ts'
import type { ControlStatus } from '../ops/status.ts'
import { createPerpsClient } from '../perps/client/createPerpsClient.ts'
import { addressOfPrivateKey } from '../perps/signing/privateKey.ts'
import { systemRandom } from '../random.ts'
import { loadSettings } from '../settings/load.ts'
import { type CliContext, UsageError } from './context.ts'

export const STATUS_USAGE = `usage: perpbot status [--live] [--bot URL] [--json] [--fleet]
  One-shot view of the running bot (its ops server's /status), or with --live of the venue account
  directly (needs PERPS_URL, PERPS_PROXY_PRIVATE_KEY, PERPS_PROXY_SECRET).
  --fleet     every account of FLEET_ACCOUNTS (holder, epoch, lease left; the holder's bot state,
              net PnL and weight) and FLEET_EGRESS_ID's request weight in the window, read from
              FLEET_REDIS_URL (docs/fleet.md; the same view: /fleet on a fleet bot's ops server)
  --bot URL   the bot's ops server (default http://127.0.0.1:<ops.port>)
  --json      print JSON instead of a table`

export async function statusCommand(ctx: CliContext): Promise<number> {
  const { values } = parseArgs({
    args: [...ctx.argv],
    options: {
      live: { type: 'boolean', default: false },
      bot: { type: 'string' },
      json: { type: 'boolean', default: false },
      fleet: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  })
  if (values.help) {
    ctx.stdout(STATUS_USAGE)
    return 0
  }
  if (values.fleet) return fleetStatus(ctx, values.json)
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
    const [portfolio, orders, withdrawals, assets, instruments] = await Promise.all([
      perps.getPortfolio(),
      perps.getOpenOrders(),
      perps.getWithdrawals({ status: 'pending' }),
      // Only for units: the collateral's name and each instrument's decimals.
      perps.getAssets().catch(() => []),
      perps.getInstruments().catch(() => []),
    ])
    if (values.json) {
      ctx.stdout(
        JSON.stringify({ portfolio, openOrders: orders.length, pendingWithdrawals: withdrawals.data.length }),
      )
      return 0
    }
    const m = portfolio.margin
    const cash = assets[0]?.asset
    const byId = new Map(instruments.map((i) => [i.instrument_id, i]))
    ctx.stdout(`account value       ${amount(m.total_account_value, cash)}`)
    ctx.stdout(`initial margin      ${amount(m.total_initial_margin, cash)}`)
    ctx.stdout(`maintenance margin  ${amount(m.total_maintenance_margin, cash)}`)
    ctx.stdout(`margin ratio        ${percent(marginRatio(portfolio))} (maintenance / account value)`)
    ctx.stdout(`withdrawable        ${amount(portfolio.withdrawable, cash)}`)
    ctx.stdout(`in liquidation      ${portfolio.in_liquidation ? 'yes' : 'no'}`)
    ctx.stdout(`open orders         ${orders.length}`)
    ctx.stdout(`pending withdrawals ${withdrawals.data.length}`)
    for (const p of portfolio.positions) {
      const i = byId.get(p.instrument_id)
      const px = (v: string): string => price(v, i?.price_decimals)
      ctx.stdout(
        `  ${p.symbol.padEnd(12)} size ${quantity(p.size, i?.quantity_decimals).padStart(12)} entry ${px(p.entry_price)} liq ${px(p.liquidation_price)} unrealized ${amount(p.unrealized_pnl, i?.quote_asset ?? cash)}`,
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
  /** The opening inventory's unrealized PnL at the start (not ours) and its change since (ours). */
  openingUnrealizedPnl?: string
  inventoryPnl?: string
  /** Since when it counts (Unix ms): the account's first run when the ledger spans runs. */
  since?: number
}
export interface BotStatusView {
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
    /** The unit of the amounts (an instrument's quote asset as the venue names it). */
    currency?: string
    inLiquidation: boolean
    pendingWithdrawals: number
    pnl?: PnlView & { makerShare?: number }
  }
  alerts: { severity: string; title: string; resolved?: boolean }[]
  control?: ControlStatus
}

/** `/status` says the currency when the bot knows it; the venue's instruments are quoted in USDC. */
const DEFAULT_CURRENCY = 'USDC'

const pnlLine = (p: PnlView, c: string): string =>
  `net ${amount(p.netPnl, c)} = realized ${amount(p.realizedPnl, c)} + unrealized ${amount(p.unrealizedPnl, c)}${Number(p.inventoryPnl ?? '0') === 0 ? '' : ` − opening inventory ${amount(p.inventoryPnl ?? '0', c)}`} − fees ${amount(p.fees, c)} − funding ${amount(p.funding, c)}; ${p.fills} fills, volume ${amount(p.volume, c)}${inventoryText(p, c)}`

/** A position held before the start: what it showed then is left out, and so is its change since. */
function inventoryText(p: PnlView, c: string): string {
  const before = Number(p.openingUnrealizedPnl ?? '0')
  if (before === 0 && Number(p.inventoryPnl ?? '0') === 0) return ''
  return `; opening inventory: ${amount(p.inventoryPnl ?? '0', c)} since start, not in net (its ${amount(before, c)} from before the start left out)`
}

const sinceText = (since: number | undefined): string =>
  since === undefined ? 'start' : `${new Date(since).toISOString().slice(0, 16).replace('T', ' ')} UTC`

/** A margin ratio from `/status`: a number, or the string `Infinity` once equity is gone. */
function ratioText(r: number | string | undefined): string {
  if (r === undefined) return 'n/a'
  if (typeof r === 'string') return r === 'Infinity' ? '∞ (no equity left)' : r
  return percent(r)
}

export function printBotStatus(ctx: Pick<CliContext, 'stdout'>, s: BotStatusView): void {
  const c = s.account.currency ?? DEFAULT_CURRENCY
  ctx.stdout(`mode ${s.mode}, up ${Math.round(s.uptimeMs / 1000)} s`)
  ctx.stdout(
    `margin ratio ${ratioText(s.account.marginRatio)}, in liquidation ${s.account.inLiquidation ? 'yes' : 'no'}, pending withdrawals ${s.account.pendingWithdrawals}`,
  )
  if (s.account.pnl) {
    const share = s.account.pnl.makerShare
    ctx.stdout(
      `account PnL since ${sinceText(s.account.pnl.since)}: ${pnlLine(s.account.pnl, c)}${share === undefined ? '' : `, maker ${percent(share)}`}`,
    )
  }
  for (const i of s.instruments) {
    ctx.stdout(`  ${i.symbol.padEnd(12)} ${i.state.padEnd(28)} orders ${i.openOrders}  ${i.reason ?? ''}`)
    if (i.degraded && i.degraded.length > 0) ctx.stdout(`    degraded: ${i.degraded.join('; ')}`)
    if (i.pnl)
      ctx.stdout(
        `    position ${i.pnl.position}${i.pnl.entryPrice ? ` @ ${i.pnl.entryPrice}` : ''}; ${pnlLine(i.pnl, c)}`,
      )
  }
  if (s.control) for (const l of controlLines(s.control)) ctx.stdout(l)
  for (const a of s.alerts.slice(-5))
    ctx.stdout(`  alert ${a.resolved ? 'resolved' : a.severity}: ${a.title}`)
}

/** `--fleet`: two read-only round trips to the fleet's Redis. */
async function fleetStatus(ctx: CliContext, json: boolean): Promise<number> {
  const c = loadFleetStatusConfig(ctx.env)
  const redis = connectFleetRedis(c.redisUrl, { reconnectMs: 200 })
  const where = parseFleetRedisUrl(c.redisUrl).host
  try {
    // Bounded: a few reconnect attempts, then a clear error (the URL's password is never printed).
    for (let i = 0; i < 15 && redis.status !== 'ready'; i++) await new Promise((r) => setTimeout(r, 200))
    if (redis.status !== 'ready')
      throw new UsageError(`the fleet Redis at ${where} does not answer (FLEET_REDIS_URL)`)
    const view = await readFleetView(redis, {
      accounts: c.accounts,
      egressId: c.egressId,
      budget: c.budget,
      windowMs: c.windowMs,
    })
    ctx.stdout(json ? JSON.stringify(view, null, 2) : formatFleetView(view))
    return 0
  } finally {
    redis.disconnect()
  }
}

/**
 * Preflight: the checks `perpbot doctor` prints and `perpbot run --live` runs before it starts, one
 * line each, in order. A failed check makes every later check that depends on it a `skip`, so the
 * first failure is the one to fix. Nothing here changes the account: the signed self-tests modify and
 * cancel an order id that cannot exist, and the venue's answer tells a signature problem apart from
 * "order not found".
 */

import { privateKeyToAccount } from 'viem/accounts'
import { marginRatio } from '../bot/account/marginRatio.ts'
import { type Clock, OffsetClock } from '../clock.ts'
import { describeError, RequestRejectedError, UnknownOutcomeError } from '../errors.ts'
import { amount, percent } from '../format/units.ts'
import { isTransient, retryTransient } from '../http/retryTransient.ts'
import { createHttpTransport } from '../http/transport.ts'
import type { RequestGate } from '../perps/client/context.ts'
import { ProxyCredentials } from '../perps/client/context.ts'
import { createPerpsClient, type PerpsClient } from '../perps/client/createPerpsClient.ts'
import { syncClock } from '../perps/client/syncClock.ts'
import { orderTagFor } from '../perps/orderTag.ts'
import { CommandSigner } from '../perps/signing/commandSigner.ts'
import {
  DEFAULT_PERPS_DOMAIN,
  type PerpsDomain,
  perpsDomainFromExchangeInfo,
} from '../perps/signing/domain.ts'
import { SaltSource } from '../perps/signing/salt.ts'
import type { Random } from '../random.ts'
import type { Settings } from '../settings/schema.ts'
import { deadManLine, leverageLine } from './accountSettingsCheck.ts'
import { foreignOrdersLine, summarizeForeignOrders } from './foreignOrders.ts'
import { openOrderCapacity } from './openOrderCapacity.ts'
import { checkPortFree } from './portCheck.ts'

export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip'

export interface CheckLine {
  check: string
  status: CheckStatus
  detail: string
}

export interface PreflightOptions {
  settings: Settings
  perpsUrl: string
  proxyPrivateKey: string | undefined
  proxySecret: string | undefined
  clock: Clock
  random: Random
  /** Check the ops port (default true). */
  opsPort?: boolean | undefined
  /**
   * The venue's WebSocket address (PERPS_WS_URL). With `streams.enabled` and none, every input polls:
   * a warning line says so. Absent from the options: the line is not printed.
   */
  streamUrl?: string | undefined
  /** Whether `streamUrl` was given at all (a dry run's mock has its own). */
  checkStream?: boolean | undefined
  /** Each enabled instrument's strategy `maxOrders` (the open-order capacity line); absent: unknown. */
  maxOrders?: ReadonlyMap<string, number | undefined> | undefined
  /** The request gate of the checks' clients (a fleet bot's preflight spends the shared IP budget). */
  gate?: RequestGate | undefined
}

/** An order id no venue will have issued: the signed self-tests modify and cancel it. */
export const ABSENT_ORDER_ID = Number.MAX_SAFE_INTEGER
const SKEW_WARN_MS = 2_000
/** The venue's signature window: beyond it every signed command is refused. */
const SKEW_FAIL_MS = 5 * 60_000
const EXPIRY_WARN_DAYS = 7
const DAY_MS = 86_400_000

/** Whether any line failed. */
export const preflightFailed = (lines: readonly CheckLine[]): boolean =>
  lines.some((l) => l.status === 'fail')

/** The log level of a line: a failure is an error, a warning a warning. */
export const checkLogLevel = (l: CheckLine): 'info' | 'warn' | 'error' =>
  l.status === 'fail' ? 'error' : l.status === 'warn' ? 'warn' : 'info'

/** Formats one line for a terminal: `ok   venue reachable: …`. */
export const formatCheckLine = (l: CheckLine): string => `${l.status.padEnd(4)} ${l.check}: ${l.detail}`

const QUIET = { warn: (): void => undefined }

export async function runPreflight(o: PreflightOptions): Promise<CheckLine[]> {
  const lines: CheckLine[] = []
  const add = (check: string, status: CheckStatus, detail: string): void =>
    void lines.push({ check, status, detail })
  const { settings } = o
  const transport = createHttpTransport({
    baseUrl: o.perpsUrl,
    connectTimeoutMs: settings.perps.connectTimeoutMs,
    headersTimeoutMs: settings.perps.requestTimeoutMs,
    bodyTimeoutMs: settings.perps.requestTimeoutMs,
  })
  const venueClock = new OffsetClock(o.clock)
  const gate = o.gate === undefined ? {} : { gate: o.gate }
  const publicClient = createPerpsClient({ transport, clock: venueClock, random: o.random, ...gate })
  try {
    await venueChecks(o, add, publicClient, venueClock, (credentials, signer) =>
      createPerpsClient({
        transport,
        clock: venueClock,
        random: o.random,
        credentials,
        signer,
        authHeaderNames: { proxy: settings.perps.proxyHeader, secret: settings.perps.secretHeader },
        defaultExpAfterMs: settings.perps.commandExpiryMs,
        ...gate,
      }),
    )
  } finally {
    await transport.close()
  }
  if (o.checkStream) add(...streamLine(settings, o.streamUrl))
  if (o.opsPort !== false) {
    const { host, port } = settings.ops
    const busy = await checkPortFree(host, port)
    if (busy === undefined) add('ops port free', 'ok', `${host}:${port}`)
    else
      add(
        'ops port free',
        'fail',
        `${host}:${port} ${busy}; choose another with --ops-port N or the config key ops.port`,
      )
  }
  return lines
}

type Add = (check: string, status: CheckStatus, detail: string) => void

async function venueChecks(
  o: PreflightOptions,
  add: Add,
  publicClient: PerpsClient,
  venueClock: OffsetClock,
  accountClient: (credentials: ProxyCredentials, signer: CommandSigner) => PerpsClient,
): Promise<void> {
  const skip = (...checks: string[]): void => {
    for (const c of checks) add(c, 'skip', 'not checked (an earlier check failed)')
  }
  const ACCOUNT_CHECKS = [
    'proxy credentials',
    'account readable',
    'instruments listed',
    'foreign orders',
    'leverage and margin mode',
    'dead-man switch',
    'open-order capacity',
    'weight tier',
    'signed self-test: modifyOrders',
    'signed self-test: cancelOrders',
  ]
  // A transient refusal (429, 5xx, a dropped connection) is tried again before a check fails: a bot
  // restarted into a busy venue should start, not be refused by one unlucky read.
  const again = <T>(what: string, read: () => Promise<T>): Promise<T> =>
    retryTransient(`preflight: ${what}`, read, { clock: o.clock, logger: QUIET, attempts: 4 })
  let offset: number | undefined
  try {
    offset = await again('venue time', () =>
      syncClock(publicClient, o.clock, venueClock, { samples: 3, maxRttMs: 5_000 }),
    )
    add('venue reachable', 'ok', o.perpsUrl)
  } catch (e) {
    add('venue reachable', 'fail', `${o.perpsUrl}: ${describeError(e)}`)
    return skip('clock skew', 'exchange domain', ...ACCOUNT_CHECKS)
  }
  const skew = Math.abs(offset ?? 0)
  /** Past the venue's signature window nothing is signed: the self-tests are not sent. */
  const clockRefused = offset !== undefined && skew > SKEW_FAIL_MS
  if (offset === undefined) add('clock skew', 'warn', 'every round trip was too slow to measure the offset')
  else if (clockRefused)
    add('clock skew', 'fail', `${offset} ms: beyond the venue's 5-minute signature window; fix NTP`)
  else add('clock skew', skew > SKEW_WARN_MS ? 'warn' : 'ok', `${offset} ms`)

  let domain: PerpsDomain
  try {
    domain = perpsDomainFromExchangeInfo(await again('exchange info', () => publicClient.getExchange()))
    add('exchange domain', 'ok', `${domain.name} v${domain.version} on chain ${domain.chainId}`)
  } catch (e) {
    domain = { ...DEFAULT_PERPS_DOMAIN, chainId: o.settings.perps.chainId }
    add(
      'exchange domain',
      'warn',
      `unreadable (${describeError(e)}); using chain ${domain.chainId} from the config`,
    )
  }

  if (!o.proxyPrivateKey || !o.proxySecret) {
    add('proxy credentials', 'fail', 'PERPS_PROXY_PRIVATE_KEY and PERPS_PROXY_SECRET must both be set')
    return skip(...ACCOUNT_CHECKS.slice(1))
  }
  let perps: PerpsClient
  let proxy: string
  try {
    const signer = new CommandSigner({
      privateKey: o.proxyPrivateKey as `0x${string}`,
      clock: venueClock,
      salts: new SaltSource(o.random),
      domain,
    })
    proxy = privateKeyToAccount(o.proxyPrivateKey as `0x${string}`).address
    perps = accountClient(new ProxyCredentials(proxy, o.proxySecret), signer)
  } catch (e) {
    add('proxy credentials', 'fail', describeError(e))
    return skip(...ACCOUNT_CHECKS.slice(1))
  }

  try {
    const creds = await again('credentials', () => perps.getCredentials())
    const mine = creds.keys.find((k) => k.proxy.toLowerCase() === proxy.toLowerCase())
    if (!mine) add('proxy credentials', 'fail', `the venue does not list proxy ${proxy} for this account`)
    else {
      const days = (mine.expiry - venueClock.now()) / DAY_MS
      if (days <= 0)
        add('proxy credentials', 'fail', `proxy ${proxy} expired; run perpbot create-proxy --live`)
      else
        add(
          'proxy credentials',
          days < EXPIRY_WARN_DAYS ? 'warn' : 'ok',
          `proxy ${proxy}, expires in ${days.toFixed(1)} days${days < EXPIRY_WARN_DAYS ? ': rotate it soon' : ''}`,
        )
    }
  } catch (e) {
    const why =
      e instanceof RequestRejectedError && e.status === 401
        ? `the venue refused proxy ${proxy} and its secret (401): wrong secret, unregistered or expired key`
        : describeError(e)
    add('proxy credentials', 'fail', why)
    return skip(...ACCOUNT_CHECKS.slice(1))
  }

  try {
    const p = await again('portfolio', () => perps.getPortfolio())
    const m = p.margin
    const cash = (await perps.getAssets().catch(() => []))[0]?.asset
    const detail = `equity ${amount(m.total_account_value, cash)}, initial margin ${amount(m.total_initial_margin, cash)}, maintenance ${amount(m.total_maintenance_margin, cash)}, margin ratio ${percent(marginRatio(p))}, in liquidation: ${p.in_liquidation ? 'yes' : 'no'}`
    add(
      'account readable',
      p.in_liquidation ? 'fail' : 'ok',
      p.in_liquidation ? `${detail}: the account is being liquidated` : detail,
    )
  } catch (e) {
    add('account readable', 'fail', describeError(e))
  }

  const wanted = o.settings.instruments.filter((i) => i.enabled).map((i) => i.symbol)
  const venueMax = new Map<string, number>()
  const symbols = new Map<number, string>()
  try {
    const instruments = await again('instruments', () => perps.getInstruments())
    for (const i of instruments) {
      venueMax.set(i.symbol, i.max_order_count)
      symbols.set(i.instrument_id, i.symbol)
    }
    const missing = wanted.filter((s) => !venueMax.has(s))
    if (missing.length > 0)
      add(
        'instruments listed',
        'fail',
        `not listed by the venue: ${missing.join(', ')}; the venue lists ${listed([...venueMax.keys()])}`,
      )
    else add('instruments listed', 'ok', wanted.join(', '))
  } catch (e) {
    add('instruments listed', 'fail', describeError(e))
  }

  try {
    const open = await again('open orders', () => perps.getOpenOrders())
    const summary = summarizeForeignOrders(
      open,
      (iid) => symbols.get(iid) ?? `instrument ${iid}`,
      orderTagFor(o.settings.orders.tag),
    )
    add(...foreignOrdersLine(summary, o.settings.ops.deadManSwitch.enabled, o.settings.orders.foreign))
  } catch (e) {
    add('foreign orders', 'warn', `open orders unreadable: ${describeError(e)}`)
  }

  try {
    const ids = new Map([...symbols].map(([id, sym]) => [sym, id]))
    add(...leverageLine(o.settings, ids, await again('account config', () => perps.getAccountConfig())))
  } catch (e) {
    add('leverage and margin mode', 'warn', `account config unreadable: ${describeError(e)}`)
  }
  try {
    add(
      ...deadManLine(
        o.settings,
        await again('dead-man switch', () => perps.getAutoCancel()),
        venueClock.now(),
      ),
    )
  } catch (e) {
    add('dead-man switch', 'warn', `status unreadable: ${describeError(e)}`)
  }

  const capacity = openOrderCapacity(
    wanted.map((symbol) => ({
      symbol,
      maxOrders: o.maxOrders?.get(symbol),
      venueMax: venueMax.get(symbol),
    })),
    o.settings.quoting.accountOpenOrderCap,
  )
  add('open-order capacity', capacity.status, capacity.detail)

  // The account's tier endpoint (GET /v1/account/limits) is not in the spec: informational only.
  add(
    'weight tier',
    'warn',
    `not read; budgeting for ${o.settings.limiter.requestBudgetPerMinute} request / ${o.settings.limiter.actionBudgetPerMinute} action weight per minute`,
  )

  if (clockRefused) {
    for (const c of ['signed self-test: modifyOrders', 'signed self-test: cancelOrders'])
      add(c, 'skip', 'not signed nor sent: the clock check failed')
    return
  }
  add(
    ...(await selfTest(o.clock, 'modifyOrders', () =>
      perps.modifyOrders([{ oid: ABSENT_ORDER_ID, p: '1', qty: '1' }]),
    )),
  )
  add(...(await selfTest(o.clock, 'cancelOrders', () => perps.cancelOrders([ABSENT_ORDER_ID]))))
}

/** Streams on without an address: the bot runs, but every input polls (seconds, not milliseconds). */
export function streamLine(settings: Settings, streamUrl: string | undefined): [string, CheckStatus, string] {
  const check = 'stream address'
  if (!settings.streams.enabled)
    return [check, 'ok', 'streams off (streams.enabled false): every input polls']
  if (streamUrl) return [check, 'ok', streamUrl]
  return [
    check,
    'warn',
    'streams.enabled is true but PERPS_WS_URL is not set: every input polls, so quotes follow the index seconds late instead of milliseconds; set PERPS_WS_URL (see docs/going-live.md)',
  ]
}

/** The venue's symbols for a message: all of a short list, the first 20 of a long one. */
function listed(symbols: readonly string[]): string {
  if (symbols.length === 0) return 'no instruments'
  const shown = [...symbols].sort().slice(0, 20).join(', ')
  return symbols.length > 20 ? `${shown} and ${symbols.length - 20} more` : shown
}

/**
 * Sends one signed command for an order that cannot exist. "Order not found" proves the signature
 * verified; "invalid signature" does not. A modify layout the venue refuses is a warning: the bot
 * then reprices by cancel + create.
 */
async function selfTest(
  clock: Clock,
  command: 'modifyOrders' | 'cancelOrders',
  send: () => Promise<readonly { status: string; error?: string | undefined }[]>,
): Promise<[string, CheckStatus, string]> {
  const check = `signed self-test: ${command}`
  try {
    // The order does not exist, so sending again is harmless even when the outcome was unknown.
    const [r] = await retryTransient(check, send, {
      clock,
      logger: QUIET,
      attempts: 4,
      transient: (e) => isTransient(e) || e instanceof UnknownOutcomeError,
    })
    if (
      r?.status === 'err' &&
      /not.?found|not_in_orderbook|order_unknown|already_terminal|not_pending/i.test(r.error ?? '')
    )
      return [check, 'ok', `signature verified (the venue answered ${r.error})`]
    return [check, 'warn', `unexpected answer ${JSON.stringify(r)}`]
  } catch (e) {
    const signature = e instanceof RequestRejectedError && /signature|proxy/i.test(e.code)
    if (signature && command === 'modifyOrders')
      return [
        check,
        'warn',
        `the venue refused the modify signature (${e.code}); the bot will reprice by cancel + create`,
      ]
    return [check, 'fail', describeError(e)]
  }
}

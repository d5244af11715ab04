/**
 * The ops HTTP server: `/livez`, `/readyz`, `/metrics` and `/status` for orchestrators, Prometheus and
 * people. It only reads: the runtime supplies the checks and the status; this module serves them
 * (GET and HEAD only) and never lets a secret out of `/status`. The commands (`POST /control/…`) are
 * their own module (control/controlRoutes.ts), which authenticates them itself. `/livez` asks the watchdog (event
 * loop, loop progress) and the runtime's own check. It binds to loopback unless told otherwise; any
 * other address needs a token, then required (Bearer) on every endpoint but `/livez`. Given a timeline,
 * it also serves the dashboard: `GET /` (one page), `/assets/uplot.{js,css}` and `/events` (SSE);
 * given a history source too, `/history?since=…` (the journal's PnL and fills beyond the timeline).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Registry } from 'prom-client'
import { ConfigError, describeError } from '../errors.ts'
import type { FleetView } from '../fleet/fleetView.ts'
import { tcpPort } from '../guards.ts'
import { componentLogger, type Logger, type Scrubber } from '../logging/logger.ts'
import type { ControlRoutes } from './control/controlRoutes.ts'
import { dashboardFile, isDashboardPath } from './dashboard/assets.ts'
import { createEventStream, type EventStream } from './dashboard/eventStream.ts'
import { FLEET_PAGE_CSP, renderFleetPage } from './dashboard/fleetPage.ts'
import { HistoryBusyError, type HistorySource, parseHistoryQuery } from './dashboard/history.ts'
import type { TimelineSource } from './dashboard/timelineTypes.ts'
import { createHostCheck } from './hostCheck.ts'
import {
  bearerChecker,
  isLoopbackHost,
  OPS_TOKEN_ENV,
  tokenChecker,
  tokenCookie,
  tokenFromCookie,
} from './opsAuth.ts'
import { type BotStatus, sanitizeForJson } from './status.ts'
import type { WatchdogCheck } from './watchdog.ts'

export interface LiveCheck {
  ok: boolean
  reason: string
}

export interface ReadyCheck {
  ok: boolean
  /** Why the bot is not ready (stale inputs, unreconciled orders, ...); empty when ready. */
  reasons: readonly string[]
}

type MaybePromise<T> = T | Promise<T>

export interface OpsServerOptions {
  /** Default 127.0.0.1. */
  host?: string | undefined
  /** Default 9464; 0 picks a free port (tests). */
  port?: number | undefined
  /** The bot's own registry (see `createBotMetrics`). */
  registry: Registry
  getStatus: () => MaybePromise<BotStatus>
  /** The runtime's own liveness (e.g. not stopping); `/livez` needs it and the watchdog to pass. */
  isLive?: (() => MaybePromise<LiveCheck>) | undefined
  /** Event-loop stalls and loops that stopped making progress (see `createWatchdog`). */
  watchdog?: { check(): WatchdogCheck } | undefined
  /**
   * Bearer token required on every endpoint but `/livez` (`PERPBOT_OPS_TOKEN`). Mandatory when `host`
   * is not loopback; when given on loopback it is enforced there too.
   */
  token?: string | undefined
  /** 200 only when inputs are fresh and orders reconciled. */
  isReady: () => MaybePromise<ReadyCheck>
  logger: Logger
  /** Secret values to scrub from `/status` wherever they appear (defence in depth). */
  secrets?: readonly (string | undefined)[] | undefined
  /**
   * The process's one scrubber (the `SecretBag`, which grows as secrets appear): every reply body
   * and every event-stream frame passes it on the way out (issue 34).
   */
  scrubber?: Scrubber | undefined
  /** Host names besides loopback names, IP literals and `host` that requests may name (`ops.hostNames`). */
  hostNames?: readonly string[] | undefined
  /** The bot's timeline: serves the dashboard (`/`, `/assets/*`, `/events`) when given. */
  timeline?: TimelineSource | undefined
  /** The dashboard's long history (`/history`, from the journal) when given. */
  history?: HistorySource | undefined
  /** Event-stream clients served at once (default 8). */
  maxDashboardClients?: number | undefined
  /** A client further behind than this is dropped (default 1 MiB). */
  maxDashboardBacklogBytes?: number | undefined
  /** The event stream's wall clock for its stall and serve bounds (tests); default Date.now. */
  dashboardNow?: (() => number) | undefined
  /** A fleet process: serves `/fleet` (the page) and `/fleet.json` from the fleet's view (Redis). */
  fleet?: { view(): Promise<FleetView> } | undefined
  /** The commands (`/control/…`, src/ops/control/controlRoutes.ts), which authenticate on their own. */
  control?: ControlRoutes | undefined
}

export interface RunningOpsServer {
  /** Base URL to reach the server from this host (`0.0.0.0` is reached via 127.0.0.1). */
  readonly url: string
  readonly port: number
  close(): Promise<void>
}

export const DEFAULT_OPS_HOST = '127.0.0.1'
export const DEFAULT_OPS_PORT = 9464

interface Reply {
  status: number
  contentType: string
  body: string
  headers?: Record<string, string> | undefined
}

const JSON_TYPE = 'application/json; charset=utf-8'

const json = (status: number, value: unknown, headers?: Record<string, string>): Reply => ({
  status,
  contentType: JSON_TYPE,
  body: `${JSON.stringify(value, null, 2)}\n`,
  headers,
})

/**
 * Starts the ops server and resolves once it listens.
 * @throws the listen error (e.g. EADDRINUSE) when the port cannot be bound.
 */
export async function startOpsServer(options: OpsServerOptions): Promise<RunningOpsServer> {
  const host = options.host ?? DEFAULT_OPS_HOST
  const log = componentLogger(options.logger, 'ops')
  // Settings refuse this first (exit 2); this keeps any other caller from serving /status to the world.
  if (!isLoopbackHost(host) && !options.token) {
    throw new ConfigError('the ops server needs a token to bind beyond loopback', [
      `ops.host: ${host} needs env ${OPS_TOKEN_ENV}, or bind 127.0.0.1`,
    ])
  }
  const authorized = options.token ? bearerChecker(options.token) : () => true
  const tokenMatches = options.token ? tokenChecker(options.token) : () => true
  const events: EventStream | undefined = options.timeline
    ? createEventStream({
        source: options.timeline,
        secrets: options.secrets,
        scrubber: options.scrubber,
        maxClients: options.maxDashboardClients,
        maxBacklogBytes: options.maxDashboardBacklogBytes,
        now: options.dashboardNow,
      })
    : undefined

  /** A reply, or `events` when the event stream takes the response over. */
  const route = async (req: IncomingMessage, url: URL): Promise<Reply | 'events'> => {
    const controlled = await options.control?.handle(req, url)
    if (controlled !== undefined) return controlled
    const method = req.method ?? 'GET'
    const path = url.pathname
    const history = path === '/history' && events !== undefined
    const dashboard = events !== undefined && (isDashboardPath(path) || history)
    const fleet = options.fleet !== undefined && (path === '/fleet' || path === '/fleet.json')
    const known =
      path === '/livez' ||
      path === '/readyz' ||
      path === '/metrics' ||
      path === '/status' ||
      dashboard ||
      fleet
    const allowed =
      path === '/livez' ||
      authorized(req.headers.authorization) ||
      ((dashboard || fleet) && tokenMatches(tokenFromCookie(req.headers.cookie)))
    // The page opened with `?token=`: keep it as a cookie and drop it from the address bar.
    const queryToken = url.searchParams.get('token') ?? undefined
    if (options.token && dashboard && path === '/' && queryToken !== undefined && tokenMatches(queryToken))
      return {
        ...json(303, { see: '/' }),
        headers: { location: '/', 'set-cookie': tokenCookie(options.token) },
      }
    if (!allowed)
      return json(401, { error: 'unauthorized' }, { 'www-authenticate': 'Bearer realm="perpbot-ops"' })
    if (!known) return json(404, { error: 'not_found', path })
    if (path === '/events') {
      if (method !== 'GET') return json(405, { error: 'method_not_allowed' }, { allow: 'GET' })
      return 'events'
    }
    if (method !== 'GET' && method !== 'HEAD')
      return json(405, { error: 'method_not_allowed' }, { allow: 'GET, HEAD' })
    const file = dashboard ? dashboardFile(path) : undefined
    if (file) return file
    if (history) {
      // Without a journal the page says so (a 404 would be an error in its console).
      if (options.history === undefined) return json(200, { journal: false })
      const q = parseHistoryQuery(url.searchParams.get('since'))
      if ('error' in q) return json(400, { error: 'bad_request', message: q.error })
      try {
        return json(200, await options.history.read(q))
      } catch (e) {
        if (!(e instanceof HistoryBusyError)) throw e
        return json(503, { error: 'busy', message: e.message }, { 'retry-after': '1' })
      }
    }
    if (fleet && options.fleet !== undefined) return fleetReply(path, await options.fleet.view())
    switch (path) {
      case '/livez': {
        const live = await liveness(options)
        return json(live.ok ? 200 : 503, { status: live.ok ? 'ok' : 'fail', reason: live.reason })
      }
      case '/readyz': {
        const ready = await check(
          options.isReady,
          (e): ReadyCheck => ({ ok: false, reasons: [`readiness check failed: ${e}`] }),
        )
        return json(ready.ok ? 200 : 503, {
          status: ready.ok ? 'ready' : 'not_ready',
          reasons: ready.reasons,
        })
      }
      case '/metrics':
        return {
          status: 200,
          contentType: options.registry.contentType,
          body: await options.registry.metrics(),
        }
      default:
        return json(200, sanitizeForJson(await options.getStatus(), { secrets: options.secrets }))
    }
  }

  const forUs = createHostCheck({ bindHost: host, names: options.hostNames })
  const server: Server = createServer((req, res) => {
    // Another name resolved to us (DNS rebinding): not ours to answer (RFC 9110 §15.5.20).
    if (!forUs(req.headers.host)) return send(req, res, json(421, { error: 'misdirected_request' }))
    const target = requestUrl(req)
    void route(req, target)
      .catch((e: unknown): Reply => {
        // The path only: a query may carry the token.
        log.warn({ path: target.pathname, error: describeError(e) }, 'ops request failed')
        return json(500, { error: 'internal_error' })
      })
      .then((reply) =>
        reply === 'events'
          ? events?.open(req, res)
          : send(req, res, options.scrubber ? { ...reply, body: options.scrubber.scrub(reply.body) } : reply),
      )
  })
  server.headersTimeout = 5_000
  server.requestTimeout = 10_000
  server.keepAliveTimeout = 5_000

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? DEFAULT_OPS_PORT, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  server.on('error', (e) => log.error({ error: describeError(e) }, 'ops server error'))
  const port = tcpPort(server.address())
  const url = `http://${reachableHost(host)}:${port}`
  log.info(
    { host, port, url, auth: options.token ? 'bearer' : 'none', dashboard: events !== undefined },
    'ops server listening',
  )

  let closing: Promise<void> | undefined
  return {
    url,
    port,
    close() {
      closing ??= (async () => {
        await events?.close()
        await new Promise<void>((resolve) => {
          server.close(() => resolve())
          server.closeAllConnections()
        })
      })()
      return closing
    },
  }
}

/** `/fleet` (the page, its own script-free policy) or `/fleet.json`. */
function fleetReply(path: string, view: FleetView): Reply {
  if (path === '/fleet.json') return json(200, view)
  return {
    status: 200,
    contentType: 'text/html; charset=utf-8',
    body: renderFleetPage(view, Date.now()),
    headers: { 'content-security-policy': FLEET_PAGE_CSP, 'referrer-policy': 'no-referrer' },
  }
}

/** The runtime's check and the watchdog's, combined: live only when both pass; every reason named. */
async function liveness(options: OpsServerOptions): Promise<LiveCheck> {
  const fail = (e: string): LiveCheck => ({ ok: false, reason: `liveness check failed: ${e}` })
  const own = options.isLive ? await check(options.isLive, fail) : { ok: true, reason: 'alive' }
  const dog = options.watchdog
  if (!dog) return own
  const watched = await check(() => {
    const c = dog.check()
    return { ok: c.ok, reason: c.reasons.join('; ') }
  }, fail)
  if (watched.ok) return own
  return { ok: false, reason: own.ok ? watched.reason : `${own.reason}; ${watched.reason}` }
}

/** Runs a check; a throwing or rejecting check is a failed check, never a 500. */
async function check<T>(fn: () => MaybePromise<T>, onError: (message: string) => T): Promise<T> {
  try {
    return await fn()
  } catch (e) {
    return onError(describeError(e))
  }
}

function send(req: IncomingMessage, res: ServerResponse, reply: Reply): void {
  res.writeHead(reply.status, {
    'content-type': reply.contentType,
    'content-length': String(Buffer.byteLength(reply.body)),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...reply.headers,
  })
  if (req.method === 'HEAD') res.end()
  else res.end(reply.body)
}

/** The request's URL; an unparsable one reads as an unknown path (answered 401 or 404). */
function requestUrl(req: IncomingMessage): URL {
  try {
    return new URL(req.url ?? '/', 'http://ops.invalid')
  } catch {
    return new URL('/invalid-url', 'http://ops.invalid')
  }
}

/** A wildcard bind address is reached through loopback. */
function reachableHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1'
  if (host === '::') return '[::1]'
  return host.includes(':') ? `[${host}]` : host
}

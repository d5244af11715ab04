/**
 * `perpbot pause | resume | cancel-all | flatten | reload | stop`: one command to the running bot,
 * POSTed to its ops server (`/control/<command>`, src/ops/control/controlRoutes.ts) with the ops
 * token when PERPBOT_OPS_TOKEN is set, else with the session's CSRF token (loopback). Prints the bot's
 * answer; exit 0 when it did (or had already done) it, 1 when it could not, 2 for a bad instrument,
 * a refused token or no bot answering.
 */
import { parseArgs } from 'node:util'
import { createHttpTransport, type HttpTransport } from '../http/transport.ts'
import { CLIENT_HEADER, type ControlCommandName, CSRF_HEADER } from '../ops/control/controlRoutes.ts'
import { loadSettings } from '../settings/load.ts'
import { type CliContext, UsageError } from './context.ts'

const WHAT: Record<ControlCommandName, string> = {
  pause: 'hold the instruments halted (orders cancelled, no quotes) until resume',
  resume:
    'lift a pause; without --instrument also every protection halt (the daily loss and drawdown count from now)',
  'cancel-all': 'cancel every open order of ours once (instruments not paused quote again)',
  flatten: 'pause, then close the positions with reduce-only IOC orders at a bounded price',
  reload: 'read the configuration again: new strategy parameters apply at once, removed instruments halt',
  stop: 'stop the bot by its exit policy (as SIGTERM)',
}
const SCOPED: ReadonlySet<ControlCommandName> = new Set(['pause', 'resume', 'flatten'])

export const controlUsage = (name: ControlCommandName): string =>
  `usage: perpbot ${name} [--bot URL]${SCOPED.has(name) ? ' [--instrument SYMBOL]' : ''} [--json]
  Tells the running bot to ${WHAT[name]}.
  Idempotent: the same command twice changes nothing the second time and says so. Journaled by the
  bot (what, when, from where).
  --bot URL      the bot's ops server (default http://127.0.0.1:<ops.port>); beyond loopback it needs
                 env PERPBOT_OPS_TOKEN, sent as a Bearer token${SCOPED.has(name) ? '\n  --instrument S  only this traded symbol (default: every instrument)' : ''}
  --json         print the bot's JSON answer
  exit codes: 0 done (or already so); 1 the bot could not; 2 bad usage, refused token, no bot`

interface Outcome {
  ok?: boolean
  message?: string
  error?: string
  lines?: string[]
}

export async function controlCommand(ctx: CliContext, name: ControlCommandName): Promise<number> {
  const { values } = parseArgs({
    args: [...ctx.argv],
    options: {
      bot: { type: 'string' },
      ...(SCOPED.has(name) ? { instrument: { type: 'string' as const } } : {}),
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  })
  if (values.help) {
    ctx.stdout(controlUsage(name))
    return 0
  }
  const { settings, secrets } = loadSettings({
    configDir: ctx.configDir,
    mode: 'dry-run',
    env: ctx.env,
    needs: [],
  })
  const url = values.bot ?? `http://127.0.0.1:${settings.ops.port}`
  const instrument =
    'instrument' in values && typeof values.instrument === 'string' ? values.instrument : undefined
  const transport = createHttpTransport({ baseUrl: url, connectTimeoutMs: 2_000, headersTimeoutMs: 15_000 })
  try {
    const res = await send(transport, name, instrument, secrets.PERPBOT_OPS_TOKEN, url)
    let reply: Outcome = {}
    try {
      const parsed: unknown = JSON.parse(res.text)
      if (parsed !== null && typeof parsed === 'object') reply = parsed
    } catch {
      // Not JSON: said below by the status.
    }
    if (values.json) ctx.stdout(res.text.trimEnd())
    else {
      const say = res.status === 200 ? ctx.stdout : ctx.stderr
      say(`${name}: ${reply.message ?? reply.error ?? `the bot answered ${res.status}`}`)
      for (const l of reply.lines ?? []) say(`  ${l}`)
    }
    if (res.status === 200) return 0
    if (res.status === 400 || res.status === 401) return 2
    return 1
  } finally {
    await transport.close()
  }
}

async function send(
  transport: HttpTransport,
  name: ControlCommandName,
  instrument: string | undefined,
  token: string | undefined,
  url: string,
): Promise<{ status: number; text: string }> {
  const body = instrument === undefined ? {} : { instrument }
  return postToBot({ transport, path: `/control/${name}`, body, token, url })
}

/**
 * POSTs to the running bot's control routes: with the ops token when set, else with the session's
 * CSRF token (loopback), as the dashboard does. No bot answering, or one wanting a token, is a usage
 * error naming the address.
 */
export async function postToBot(o: {
  transport: HttpTransport
  path: string
  body: unknown
  token: string | undefined
  url: string
}): Promise<{ status: number; text: string }> {
  const { transport, path, body, token, url } = o
  const reach = async <T>(f: () => Promise<T>): Promise<T> => {
    try {
      return await f()
    } catch {
      throw new UsageError(
        `no running bot answers at ${url} (start one with \`npm start\`, or name it with --bot URL)`,
      )
    }
  }
  if (token !== undefined)
    return reach(() =>
      transport.request({
        method: 'POST',
        path,
        headers: { authorization: `Bearer ${token}`, [CLIENT_HEADER]: 'cli' },
        body,
      }),
    )
  // On loopback without a token: the session's CSRF token, as the dashboard does.
  const session = await reach(() => transport.request({ method: 'GET', path: '/control/session' }))
  if (session.status === 401)
    throw new UsageError(`the bot at ${url} wants the ops token: set PERPBOT_OPS_TOKEN`)
  if (session.status !== 200)
    throw new UsageError(`the bot at ${url} does not take commands (answered ${session.status})`)
  const parsed: unknown = JSON.parse(session.text)
  const csrf = parsed !== null && typeof parsed === 'object' && 'csrf' in parsed ? String(parsed.csrf) : ''
  return reach(() =>
    transport.request({
      method: 'POST',
      path,
      headers: { [CSRF_HEADER]: csrf, [CLIENT_HEADER]: 'cli' },
      body,
    }),
  )
}

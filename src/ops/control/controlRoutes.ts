/**
 * The ops server's control routes: `POST /control/<command>` (pause, resume, cancel-all, flatten,
 * reload, stop) for `perpbot <command> --bot URL`, the dashboard's buttons and nothing else.
 *
 * Who may command: a request with the ops token as a Bearer header (the CLI, when PERPBOT_OPS_TOKEN
 * is set), or one carrying this run's CSRF token in `x-perpbot-csrf`, read from `GET /control/session`
 * — which needs the same access as `/status` (loopback, or the token as header or the dashboard's
 * cookie) and is unreadable to another origin (no CORS). A browser's request must also come from the
 * page's own origin (`Origin` equal to the address it asked). No GET has a side effect; with
 * `ops.readOnly` every command is refused (403) and the page shows no buttons.
 */
import { randomBytes } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { bearerChecker, tokenChecker, tokenFromCookie } from '../opsAuth.ts'
import { type KeyRotationTarget, ROTATE_KEY_PATH, rotateKeyReply } from '../rotateKeyEndpoint.ts'
import { CONTROLS_SCRIPT } from './controlsScript.ts'

/** The commands, as the bot's control part names them. */
export const CONTROL_COMMAND_NAMES = ['pause', 'resume', 'cancel-all', 'flatten', 'reload', 'stop'] as const
export type ControlCommandName = (typeof CONTROL_COMMAND_NAMES)[number]

/** What the bot answers to a command (the control part's reply). */
export interface ControlOutcome {
  ok: boolean
  command: string
  changed: boolean
  message: string
  lines?: readonly string[] | undefined
}

/** The bot's side of the joint: runs one command (provided by src/bot/control/botControl.ts). */
export interface ControlTarget {
  run(request: {
    command: ControlCommandName
    instrument?: string | undefined
    from: string
  }): Promise<ControlOutcome>
}

export interface ControlReplyHttp {
  status: number
  contentType: string
  body: string
  headers?: Record<string, string> | undefined
}

export interface ControlRoutes {
  /** The reply for a `/control/…` path; undefined for any other path. */
  handle(req: IncomingMessage, url: URL): Promise<ControlReplyHttp | undefined>
}

/** The header carrying the session's CSRF token. */
export const CSRF_HEADER = 'x-perpbot-csrf'
/** Who sends the command (`cli`, `dashboard`, `telegram`), for the journal; informational only. */
export const CLIENT_HEADER = 'x-perpbot-client'
const MAX_BODY_BYTES = 4_096

const json = (status: number, value: unknown, headers?: Record<string, string>): ControlReplyHttp => ({
  status,
  contentType: 'application/json; charset=utf-8',
  body: `${JSON.stringify(value, null, 2)}\n`,
  headers,
})

export function createControlRoutes(o: {
  target: ControlTarget
  /** PERPBOT_OPS_TOKEN, when set: then every control request is authenticated by it. */
  token: string | undefined
  readOnly: boolean
  /** The traded symbols (the page's instrument choice). */
  instruments: () => readonly string[]
  /** This run's CSRF token (default: 32 random bytes). */
  csrf?: string | undefined
  /** The bot's key rotation (`POST /control/rotate-key`, `perpbot rotate-key`); absent: 404 there. */
  rotateKey?: KeyRotationTarget | undefined
}): ControlRoutes {
  const csrf = o.csrf ?? randomBytes(32).toString('hex')
  const csrfMatches = tokenChecker(csrf)
  const bearer = o.token ? bearerChecker(o.token) : () => false
  const cookie = o.token ? tokenChecker(o.token) : () => true
  /** Reading the session: as reading `/status` (a token beyond loopback: header or cookie). */
  const mayRead = (req: IncomingMessage): boolean =>
    o.token === undefined || bearer(req.headers.authorization) || cookie(tokenFromCookie(req.headers.cookie))

  /** A POST's body when it may act, else its refusal (read-only, authentication, origin, media type, size). */
  const admitted = async (
    req: IncomingMessage,
  ): Promise<{ body: string } | { refused: ControlReplyHttp }> => {
    if (o.readOnly)
      return { refused: json(403, { error: 'read_only', message: 'ops.readOnly is set: commands are off' }) }
    const byToken = bearer(req.headers.authorization)
    if (!byToken) {
      if (!mayRead(req) || !csrfMatches(headerOf(req, CSRF_HEADER)))
        return {
          refused: json(401, {
            error: 'unauthorized',
            message: 'needs the ops token or the session CSRF token',
          }),
        }
      if (!sameOrigin(req))
        return { refused: json(403, { error: 'cross_origin', message: 'Origin is not this server' }) }
    }
    if (!/^application\/json\b/i.test(req.headers['content-type'] ?? ''))
      return { refused: json(415, { error: 'unsupported_media_type', message: 'send application/json' }) }
    const body = await readBody(req)
    if (body === undefined) return { refused: json(413, { error: 'too_large' }) }
    return { body }
  }

  const rotate = async (req: IncomingMessage): Promise<ControlReplyHttp> => {
    const a = await admitted(req)
    if ('refused' in a) return a.refused
    let parsed: unknown
    try {
      parsed = JSON.parse(a.body)
    } catch {
      return json(400, { error: 'bad_request', message: 'the body is not JSON' })
    }
    const reply = await rotateKeyReply(parsed, o.rotateKey)
    return json(reply.status, reply.body)
  }

  const command = async (req: IncomingMessage, name: ControlCommandName): Promise<ControlReplyHttp> => {
    const a = await admitted(req)
    if ('refused' in a) return a.refused
    const { body } = a
    let instrument: string | undefined
    try {
      const parsed: unknown = body.trim() === '' ? {} : JSON.parse(body)
      const v =
        parsed !== null && typeof parsed === 'object' && 'instrument' in parsed
          ? parsed.instrument
          : undefined
      if (v !== undefined && (typeof v !== 'string' || v.length === 0 || v.length > 64))
        return json(400, { error: 'bad_request', message: 'instrument must be a symbol' })
      instrument = v
    } catch {
      return json(400, { error: 'bad_request', message: 'the body is not JSON' })
    }
    const client = /^[a-z-]{1,20}$/.test(headerOf(req, CLIENT_HEADER) ?? '')
      ? headerOf(req, CLIENT_HEADER)
      : 'http'
    const from = `${client} ${req.socket.remoteAddress ?? 'unknown'}`
    const outcome = await o.target.run({ command: name, instrument, from })
    const unknown = !outcome.ok && outcome.message.startsWith('not a traded instrument')
    return json(outcome.ok ? 200 : unknown ? 400 : 409, outcome)
  }

  return {
    async handle(req, url) {
      const path = url.pathname
      if (path !== '/control' && !path.startsWith('/control/')) return undefined
      const method = req.method ?? 'GET'
      if (path === '/control/controls.js') {
        if (method !== 'GET' && method !== 'HEAD')
          return json(405, { error: 'method_not_allowed' }, { allow: 'GET' })
        return { status: 200, contentType: 'text/javascript; charset=utf-8', body: CONTROLS_SCRIPT }
      }
      if (path === '/control/session') {
        if (method !== 'GET') return json(405, { error: 'method_not_allowed' }, { allow: 'GET' })
        if (!mayRead(req))
          return json(401, { error: 'unauthorized' }, { 'www-authenticate': 'Bearer realm="perpbot-ops"' })
        return json(200, {
          csrf,
          readOnly: o.readOnly,
          commands: CONTROL_COMMAND_NAMES,
          instruments: o.instruments(),
        })
      }
      if (path === ROTATE_KEY_PATH) {
        if (method !== 'POST') return json(405, { error: 'method_not_allowed' }, { allow: 'POST' })
        return rotate(req)
      }
      const name = CONTROL_COMMAND_NAMES.find((c) => path === `/control/${c}`)
      if (name === undefined) return json(404, { error: 'not_found', path })
      // No side effect on GET: a command is a POST, always.
      if (method !== 'POST') return json(405, { error: 'method_not_allowed' }, { allow: 'POST' })
      return command(req, name)
    },
  }
}

function headerOf(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name]
  return Array.isArray(v) ? v[0] : v
}

/**
 * A browser's request carries `Origin`; its host must be the one the browser asked (`Host`), under
 * either scheme (a TLS proxy in front makes it https). No Origin: not a browser, unless it says
 * cross-site.
 */
function sameOrigin(req: IncomingMessage): boolean {
  const origin = headerOf(req, 'origin')
  if (origin === undefined) return headerOf(req, 'sec-fetch-site') !== 'cross-site'
  try {
    const u = new URL(origin)
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.host === (req.headers.host ?? '')
  } catch {
    return false
  }
}

/** The body as text, or undefined past the bound. */
async function readBody(req: IncomingMessage): Promise<string | undefined> {
  let size = 0
  const chunks: Buffer[] = []
  for await (const chunk of req) {
    const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk))
    size += b.length
    if (size > MAX_BODY_BYTES) return undefined
    chunks.push(b)
  }
  return Buffer.concat(chunks).toString('utf8')
}

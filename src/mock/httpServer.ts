/**
 * The mock's HTTP adapter: a node:http server on 127.0.0.1 that turns requests into `MockRequest`s
 * for a `MockHandler` and writes the answers back. Bodies that are not JSON get a 400; bodies over
 * `MAX_BODY_BYTES` get a 413 without being read further (the connection is then closed), JSON nested
 * deeper than `MAX_JSON_DEPTH` a 400 before it is parsed, and a client slower than the headers or
 * request timeout a 408 (the connection is then closed). Error bodies take the route's shape (perps
 * `{status, error}`, an array on batch routes; catalogue `{type, error}`).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { Duplex } from 'node:stream'
import { tcpPort } from '../guards.ts'
import type { MockHandler, MockRequest, MockResponse } from './mockHttp.ts'
import { catalogueError, isCatalogueRoute, perpsError } from './requestLimiter.ts'

export interface RunningMockServer {
  readonly url: string
  readonly port: number
  close(): Promise<void>
}

export interface MockServerOptions {
  handler: MockHandler
  port?: number | undefined
  /** Only loopback is allowed. */
  host?: '127.0.0.1' | undefined
  /** Takes HTTP upgrades (the WebSocket at `/v1/ws`); without it upgrades are refused. */
  onUpgrade?: ((req: IncomingMessage, socket: Duplex, head: Buffer) => void) | undefined
  /** Time a client has to send the request headers; a slower one gets 408. Default 10 s. */
  headersTimeoutMs?: number | undefined
  /** Time a client has to send the whole request, body included; a slower one gets 408. Default 30 s. */
  requestTimeoutMs?: number | undefined
}

export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000

/** Largest request body the mock reads (1 MiB); larger ones are answered 413. */
export const MAX_BODY_BYTES = 1 << 20

/** Deepest JSON nesting the mock parses (real bodies nest about 5 deep); deeper is a 400. */
export const MAX_JSON_DEPTH = 64

/** A request the adapter refused before the handler saw it. */
interface Refusal {
  status: 400 | 413
  error: string
}

export async function startMockHttpServer(options: MockServerOptions): Promise<RunningMockServer> {
  const requestTimeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS
  // node refuses a headers timeout above the request timeout.
  const headersTimeout = Math.min(options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS, requestTimeout)
  const serverOptions = {
    headersTimeout,
    requestTimeout,
    // How often node looks for expired requests: a quarter of the headers timeout bounds the lateness.
    connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(headersTimeout / 4))),
  }
  const server: Server = createServer(serverOptions, (req, res) => {
    const socket = req.socket
    void (async () => {
      let out: MockResponse
      try {
        const parsed = await toMockRequest(req)
        out = 'status' in parsed ? refusalResponse(req, parsed) : await options.handler(parsed)
      } catch {
        out = { status: 500, body: { status: 'err', error: 'internal_error' } }
      }
      // A timed-out client was answered 408 by `onClientError` and is gone.
      if (socket.destroyed) return
      const text = out.raw ?? (out.body === undefined ? '' : JSON.stringify(out.body))
      res.writeHead(out.status, { 'content-type': 'application/json', ...out.headers })
      res.end(text)
    })()
  })
  server.keepAliveTimeout = 60_000
  server.on('clientError', onClientError)
  // Upgraded sockets (the WebSocket) are not the server's connections any more: closing the server
  // ends them too, so a closed mock is gone for every client.
  const upgraded = new Set<Duplex>()
  const onUpgrade = options.onUpgrade
  if (onUpgrade !== undefined)
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      upgraded.add(socket)
      socket.once('close', () => upgraded.delete(socket))
      onUpgrade(req, socket, head)
    })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve())
  })
  const port = tcpPort(server.address())
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
        for (const socket of upgraded) socket.destroy()
      }),
  }
}

const TOO_LARGE: Refusal = { status: 413, error: 'request body too large' }

/**
 * Requests node's parser refused or timed out, answered here so a slow client gets a JSON 408 (node's
 * own answer has no body). The path is unknown at this point: the body takes the perps shape.
 */
function onClientError(err: Error & { code?: string }, socket: Duplex): void {
  const status =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400
  if (!socket.writable || err.code === 'ECONNRESET') {
    socket.destroy()
    return
  }
  const text = { 400: 'bad request', 408: 'request timeout', 431: 'request headers too large' }[status]
  const body = JSON.stringify({ status: 'err', error: text })
  const reason = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' }[
    status
  ]
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  )
}

/** Nesting depth of a JSON text, counting brackets outside strings; stops once past `limit`. */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c)
        i++ // backslash: skip the escaped character
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return false
}

function refusalResponse(req: IncomingMessage, r: Refusal): MockResponse {
  const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname
  // The rest of an oversized body is not read: close the connection rather than drain it.
  const headers = r.status === 413 ? { connection: 'close' } : undefined
  if (isCatalogueRoute(path))
    return catalogueError(r.status, r.status === 413 ? 'payload too large' : 'bad request', r.error, headers)
  return perpsError({ method: req.method ?? 'GET', path }, r.status, r.error, headers)
}

async function toMockRequest(req: IncomingMessage): Promise<MockRequest | Refusal> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1')
  const declared = Number(req.headers['content-length'] ?? 0)
  if (declared > MAX_BODY_BYTES) return TOO_LARGE
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    const buf: Buffer = chunk // an IncomingMessage without setEncoding yields Buffers
    size += buf.length
    if (size > MAX_BODY_BYTES) return TOO_LARGE
    chunks.push(buf)
  }
  const text = Buffer.concat(chunks).toString('utf8')
  let body: unknown
  if (text.length > 0) {
    // Refused before parsing: a deep body would overflow the stack of whatever walks it recursively.
    if (jsonDepthExceeds(text, MAX_JSON_DEPTH))
      return { status: 400, error: `JSON body nested deeper than ${MAX_JSON_DEPTH} levels` }
    try {
      body = JSON.parse(text)
    } catch {
      return { status: 400, error: 'invalid JSON body' }
    }
  }
  const headers: Record<string, string | undefined> = {}
  for (const [k, v] of Object.entries(req.headers))
    headers[k.toLowerCase()] = Array.isArray(v) ? v.join(',') : v
  return {
    method: req.method ?? 'GET',
    path: url.pathname,
    query: url.searchParams,
    headers,
    body,
    clientId: req.socket.remoteAddress ?? 'unknown',
  }
}

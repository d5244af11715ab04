/**
 * The mock's HTTP adapter: a node:http server on 127.0.0.1 that turns requests into `MockRequest`s
 * for a `MockHandler` and writes the answers back. Bodies that are not JSON get a 400; bodies over
 * `MAX_BODY_BYTES` get a 413 without being read further (the connection is then closed). Error
 * bodies take the route's shape (perps `{status, error}`, an array on batch routes; catalogue
 * `{type, error}`).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
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
}

/** Largest request body the mock reads (1 MiB); larger ones are answered 413. */
export const MAX_BODY_BYTES = 1 << 20

/** A request the adapter refused before the handler saw it. */
interface Refusal {
  status: 400 | 413
  error: string
}

export async function startMockHttpServer(options: MockServerOptions): Promise<RunningMockServer> {
  const server: Server = createServer((req, res) => {
    void (async () => {
      let out: MockResponse
      try {
        const parsed = await toMockRequest(req)
        out = 'status' in parsed ? refusalResponse(req, parsed) : await options.handler(parsed)
      } catch {
        out = { status: 500, body: { status: 'err', error: 'internal_error' } }
      }
      const text = out.raw ?? (out.body === undefined ? '' : JSON.stringify(out.body))
      res.writeHead(out.status, { 'content-type': 'application/json', ...out.headers })
      res.end(text)
    })()
  })
  server.keepAliveTimeout = 60_000
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
  const { port } = server.address() as AddressInfo
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
    size += (chunk as Buffer).length
    if (size > MAX_BODY_BYTES) return TOO_LARGE
    chunks.push(chunk as Buffer)
  }
  const text = Buffer.concat(chunks).toString('utf8')
  let body: unknown
  if (text.length > 0) {
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

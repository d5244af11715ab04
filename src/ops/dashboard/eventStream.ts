/**
 * The dashboard's server-sent events (`GET /events`): a `snapshot` event with everything the timeline
 * retains, then one `sample` event per sample. Each update is scrubbed and serialized once for all
 * clients. Clients are bounded (`maxClients`), and clients that do not read cannot lock the page out:
 * a client is dropped once its backlog passes `maxBacklogBytes` or has not drained for `maxStallMs`;
 * when every slot is taken, a new client takes the slot of the one furthest behind, else of the oldest
 * one served at least `minServeMs` (so viewers that just arrived are not bumped: those get a 503).
 * `close` ends every stream (shutdown). A client that
 * accepts gzip gets the stream gzipped, flushed after every message: the samples repeat their keys and
 * strings, so the snapshot shrinks several-fold.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Writable } from 'node:stream'
import { constants, createGzip, type Gzip } from 'node:zlib'
import { sanitizeForJson } from '../status.ts'
import type { TimelineSource, TimelineUpdate } from './timelineTypes.ts'

export const DEFAULT_MAX_SSE_CLIENTS = 8
/** 1 MiB: a few minutes of samples for a typical fleet; a client further behind is dropped. */
export const DEFAULT_MAX_BACKLOG_BYTES = 1 << 20
/** A client whose backlog has not drained for this long (wall time) is not reading: it is dropped. */
export const DEFAULT_MAX_STALL_MS = 30_000
/** A client served at least this long may give its slot to a new one when every slot is taken. */
export const DEFAULT_MIN_SERVE_MS = 10_000
/** How long `close` lets the last bytes (a gzip trailer) reach the clients: wall time, network I/O. */
const CLOSE_WAIT_MS = 250

export interface EventStreamOptions {
  source: TimelineSource
  secrets?: readonly (string | undefined)[] | undefined
  /** The process's one scrubber: every frame passes it (it knows secrets added after the start). */
  scrubber?: { scrub(text: string): string } | undefined
  maxClients?: number | undefined
  maxBacklogBytes?: number | undefined
  maxStallMs?: number | undefined
  minServeMs?: number | undefined
  /** Wall clock for the stall and serve bounds (network I/O, not the bot's clock); default Date.now. */
  now?: (() => number) | undefined
}

export interface EventStream {
  /** Takes over the response: a stream, or 503 when the client bound is reached. */
  open(req: IncomingMessage, res: ServerResponse): void
  readonly clients: number
  /** Ends every stream (waits at most `CLOSE_WAIT_MS` for them to finish); later `open`s answer 503. */
  close(): Promise<void>
}

interface Client {
  res: ServerResponse
  gzip: Gzip | undefined
  /** Where messages go: the gzip stream piped to `res`, or `res`. */
  out: Writable
  openedAt: number
  /** Since when its backlog has not drained; undefined while it keeps up. */
  behindSince: number | undefined
}

const backlog = (c: Client): number => c.res.writableLength + (c.gzip?.writableLength ?? 0)

/** Writes a message and, when gzipped, flushes it so the page gets it now. */
function send(c: Client, message: string): void {
  c.out.write(message)
  c.gzip?.flush(constants.Z_SYNC_FLUSH)
}

/** One SSE message; `data` is one JSON line (JSON.stringify never emits a raw newline). */
const frame = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`

export function createEventStream(o: EventStreamOptions): EventStream {
  const maxClients = o.maxClients ?? DEFAULT_MAX_SSE_CLIENTS
  const maxBacklog = o.maxBacklogBytes ?? DEFAULT_MAX_BACKLOG_BYTES
  const maxStall = o.maxStallMs ?? DEFAULT_MAX_STALL_MS
  const minServe = o.minServeMs ?? DEFAULT_MIN_SERVE_MS
  const now = o.now ?? Date.now
  const clients = new Set<Client>()
  let closed = false
  let unsubscribe: (() => void) | undefined

  const drop = (c: Client): void => {
    clients.delete(c)
    if (clients.size === 0) {
      unsubscribe?.()
      unsubscribe = undefined
    }
  }
  const evict = (c: Client): void => {
    drop(c)
    c.gzip?.destroy()
    c.res.destroy()
  }
  /** Notes who is behind; drops those past a bound. */
  const sweep = (t: number): void => {
    for (const c of clients) {
      const b = backlog(c)
      if (b === 0) c.behindSince = undefined
      else c.behindSince ??= t
      if (b > maxBacklog || (c.behindSince !== undefined && t - c.behindSince >= maxStall)) evict(c)
    }
  }
  /** The client to bump for a new one: the furthest behind, else the oldest served long enough. */
  const bumpable = (t: number): Client | undefined => {
    let pick: Client | undefined
    for (const c of clients) {
      if (backlog(c) > 0 && (pick === undefined || backlog(c) > backlog(pick))) pick = c
    }
    if (pick) return pick
    for (const c of clients) {
      if (t - c.openedAt >= minServe && (pick === undefined || c.openedAt < pick.openedAt)) pick = c
    }
    return pick
  }
  const scrubbed = (text: string): string => o.scrubber?.scrub(text) ?? text
  const broadcast = (u: TimelineUpdate): void => {
    const message = scrubbed(frame('sample', sanitizeForJson(u, { secrets: o.secrets })))
    sweep(now())
    for (const c of clients) send(c, message)
  }

  return {
    open(req, res) {
      const t = now()
      if (!closed && clients.size >= maxClients) {
        sweep(t)
        const bump = clients.size >= maxClients ? bumpable(t) : undefined
        if (bump) evict(bump)
      }
      if (closed || clients.size >= maxClients) {
        const body = `${JSON.stringify({ error: closed ? 'closing' : 'too_many_clients', limit: maxClients })}\n`
        res.writeHead(503, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': String(Buffer.byteLength(body)),
          'retry-after': '10',
        })
        res.end(body)
        return
      }
      const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))
        ? createGzip({ level: 6 })
        : undefined
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        connection: 'keep-alive',
        ...(gzip ? { 'content-encoding': 'gzip' } : {}),
      })
      gzip?.pipe(res)
      const c: Client = { res, gzip, out: gzip ?? res, openedAt: t, behindSince: undefined }
      // The page reconnects after 3 s if the stream breaks (the browser's default, said explicitly).
      send(
        c,
        `retry: 3000\n${scrubbed(frame('snapshot', sanitizeForJson(o.source.snapshot(), { secrets: o.secrets })))}`,
      )
      clients.add(c)
      unsubscribe ??= o.source.subscribe(broadcast)
      req.on('close', () => {
        drop(c)
        gzip?.destroy()
      })
    },
    get clients() {
      return clients.size
    },
    async close() {
      closed = true
      const ending = [...clients].map((c) => {
        drop(c)
        const finished = new Promise<void>((resolve) => c.res.once('close', resolve).once('finish', resolve))
        c.out.end()
        return finished
      })
      let timer: NodeJS.Timeout | undefined
      const bound = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, CLOSE_WAIT_MS)
      })
      await Promise.race([Promise.all(ending), bound])
      clearTimeout(timer)
    },
  }
}

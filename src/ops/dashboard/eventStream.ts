/**
 * The dashboard's server-sent events (`GET /events`): a `snapshot` event with everything the timeline
 * retains, then one `sample` event per sample. Each update is scrubbed and serialized once for all
 * clients. Clients are bounded (beyond `maxClients` a 503), a client that stops reading is dropped
 * once its backlog passes `maxBacklogBytes`, and `close` ends every stream (shutdown).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { sanitizeForJson } from '../status.ts'
import type { TimelineSource, TimelineUpdate } from './timelineTypes.ts'

export const DEFAULT_MAX_SSE_CLIENTS = 8
/** 1 MiB: a few minutes of samples for a typical fleet; a client further behind is dropped. */
export const DEFAULT_MAX_BACKLOG_BYTES = 1 << 20

export interface EventStreamOptions {
  source: TimelineSource
  secrets?: readonly (string | undefined)[] | undefined
  maxClients?: number | undefined
  maxBacklogBytes?: number | undefined
}

export interface EventStream {
  /** Takes over the response: a stream, or 503 when the client bound is reached. */
  open(req: IncomingMessage, res: ServerResponse): void
  readonly clients: number
  /** Ends every stream; later `open`s answer 503. */
  close(): void
}

/** One SSE message; `data` is one JSON line (JSON.stringify never emits a raw newline). */
const frame = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`

export function createEventStream(o: EventStreamOptions): EventStream {
  const maxClients = o.maxClients ?? DEFAULT_MAX_SSE_CLIENTS
  const maxBacklog = o.maxBacklogBytes ?? DEFAULT_MAX_BACKLOG_BYTES
  const clients = new Set<ServerResponse>()
  let closed = false
  let unsubscribe: (() => void) | undefined

  const drop = (res: ServerResponse): void => {
    clients.delete(res)
    if (clients.size === 0) {
      unsubscribe?.()
      unsubscribe = undefined
    }
  }
  const broadcast = (u: TimelineUpdate): void => {
    const message = frame('sample', sanitizeForJson(u, { secrets: o.secrets }))
    for (const res of clients) {
      if (res.writableLength > maxBacklog) {
        drop(res)
        res.destroy()
      } else res.write(message)
    }
  }

  return {
    open(req, res) {
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
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        connection: 'keep-alive',
      })
      // The page reconnects after 3 s if the stream breaks (the browser's default, said explicitly).
      res.write(
        `retry: 3000\n${frame('snapshot', sanitizeForJson(o.source.snapshot(), { secrets: o.secrets }))}`,
      )
      clients.add(res)
      unsubscribe ??= o.source.subscribe(broadcast)
      req.on('close', () => drop(res))
    },
    get clients() {
      return clients.size
    },
    close() {
      closed = true
      for (const res of [...clients]) {
        drop(res)
        res.end()
      }
    },
  }
}

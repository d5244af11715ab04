/**
 * The stream's socket protocol without a socket, for the stepped run (simulate's `streams: 'wire'`,
 * the in-process stream's equivalence baseline): the bot's own WebSocket pool and clients
 * (perps/stream/streamPool.ts, streamClient.ts: auth, subscribe and its acks, pings, sequence checks,
 * JSON parsing) talk to the mock's own session (mock/stream/streamSession.ts: JSON text, per-channel
 * `sq`), which the in-process hub serves on its ticks. Frames cross through the delivery queue both
 * ways, a publish's frames together in publish order, so the run depends on the seed alone (a real
 * loopback socket's frames arrive when the kernel hands them over, which a stepped clock cannot wait
 * for). Only the socket and its timing are not exercised; the mock's WebSocket server keeps its own
 * tests over loopback.
 */
import type { Clock } from '../../clock.ts'
import type { PerpsExchange } from '../../mock/perps/exchange.ts'
import type { InProcessStreamHub } from '../../mock/stream/inProcessStreamHub.ts'
import { StreamSession } from '../../mock/stream/streamSession.ts'
import type { SocketFactory } from '../../perps/stream/socket/socket.ts'
import type { DeliveryQueue } from './inProcessTransport.ts'

export function wireStreamOnQueue(o: {
  hub: InProcessStreamHub
  exchange: PerpsExchange
  clock: Clock
  deliveries: DeliveryQueue
}): SocketFactory {
  const { hub, clock, deliveries } = o
  return (_url, handlers) => {
    let closed = false
    let remove: (() => void) | undefined
    const end = (code: number, reason: string): void => {
      if (closed) return
      closed = true
      session.closed = true
      remove?.()
      deliveries.push(() => handlers.onClose(code, reason))
    }
    const session: StreamSession = new StreamSession(
      '127.0.0.1',
      {
        // Acks and pushes: with the publish under way, else an item of their own.
        send: (text) =>
          hub.enqueue(() => {
            if (!closed) handlers.onMessage(text)
          }),
        close: (code, reason) => end(code, reason),
        bufferedAmount: 0,
      },
      {
        now: () => clock.now(),
        authenticate: (proxy, secret) => o.exchange.authenticate(proxy, secret),
        allowMessage: () => true,
        maxSubscriptions: 100,
        changed: () => hub.changed(),
      },
      clock.now(),
    )
    deliveries.push(() => {
      if (closed) return
      remove = hub.serve({
        get owner() {
          return session.owner
        },
        subscriptions: session.subscriptions,
        push: (ch, data, ts) => session.push(ch, JSON.stringify(data), ts),
      })
      handlers.onOpen()
    })
    return {
      send: (text) =>
        deliveries.push(() => {
          if (!closed) session.onText(text, clock.now())
        }),
      close: (code, reason) => end(code ?? 1000, reason ?? ''),
      bufferedAmount: 0,
    }
  }
}

/**
 * The parts of the venue the official @polymarket/client needs besides what our mock serves, on
 * 127.0.0.1: `GET /auth/api-keys` (CLOB; `createSecureClient` checks its API key there) and the perps
 * session WebSocket (`openPerpsSession` authenticates and subscribes before it returns). Every other
 * request gets a 404, so a client call that strays here fails instead of reaching anything else.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { acceptWebSocket, type LoopbackPeer } from '../perps/signing/loopbackWebSocket.ts'

export const STUB_CLOB_API_KEY = '00000000-0000-4000-8000-000000000001'

export interface VenueStub {
  /** `http://127.0.0.1:PORT` */
  readonly url: string
  /** The perps session socket, `ws://127.0.0.1:PORT/v1/ws`. */
  readonly wsUrl: string
  close(): Promise<void>
}

export async function startVenueStub(): Promise<VenueStub> {
  const peers = new Set<LoopbackPeer>()
  const server: Server = createServer((req, res) => {
    const known = req.method === 'GET' && req.url === '/auth/api-keys'
    res.writeHead(known ? 200 : 404, { 'content-type': 'application/json' })
    res.end(JSON.stringify(known ? { apiKeys: [STUB_CLOB_API_KEY] } : { error: 'not_found' }))
  })
  server.on('upgrade', (req, socket) => {
    const peer = acceptWebSocket(req, socket, (text, p) => {
      const frame = JSON.parse(text) as { id?: unknown; req?: unknown; op?: { type?: unknown } }
      // Ack auth and subscriptions; pings (and anything else) need no answer.
      if (frame.req === 'sub' || frame.op?.type === 'auth') {
        p.sendText(JSON.stringify({ id: frame.id, data: { status: 'ok' } }))
      }
    })
    peers.add(peer)
    socket.on('close', () => peers.delete(peer))
  })
  server.listen(0, '127.0.0.1')
  await new Promise<void>((resolve) => server.once('listening', () => resolve()))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}/v1/ws`,
    async close() {
      for (const peer of peers) peer.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

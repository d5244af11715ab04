import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { WebSocketServer } from 'ws'
import { type SocketHandlers, wsSocketFactory } from '../../../src/perps/stream/socket/socket.ts'

/**
 * The bot's socket factory over real loopback (a ws server on 127.0.0.1, a random port): headers, text
 * and binary frames (UTF-8, with replacement), close codes and reasons, a refused connection. The same
 * cases passed against the undici factory it replaced (session 10), unchanged.
 */
const servers: WebSocketServer[] = []
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise<void>((r) => s.close(() => r()))
})

async function server(): Promise<{ wss: WebSocketServer; url: string }> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 })
  servers.push(wss)
  await new Promise<void>((r) => wss.once('listening', () => r()))
  return { wss, url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/v1/ws` }
}

function recorder(): { handlers: SocketHandlers; log: string[]; closed: Promise<void> } {
  const log: string[] = []
  let closed: () => void = () => {}
  const done = new Promise<void>((r) => {
    closed = r
  })
  return {
    log,
    closed: done,
    handlers: {
      onOpen: () => log.push('open'),
      onMessage: (text) => log.push(`message ${text}`),
      onError: () => log.push('error'),
      onClose: (code, reason) => {
        log.push(`close ${code} ${reason}`)
        closed()
      },
    },
  }
}

describe('wsSocketFactory', () => {
  it('sends its headers, hands text and binary frames over as text, and reports the close code and reason', async () => {
    const { wss, url } = await server()
    const seen: { header?: string | undefined; got: string[] } = { got: [] }
    wss.on('connection', (ws, req) => {
      seen.header = req.headers['x-test']?.toString()
      ws.on('message', (m, isBinary) => {
        seen.got.push(`${isBinary ? 'binary' : 'text'} ${m.toString()}`)
        ws.send('{"ch":"a","é":1}')
        ws.send(Buffer.from('{"ch":"b","ü":2}'), { binary: true })
        ws.send(Buffer.from([0x7b, 0xff, 0x7d]), { binary: true })
        ws.close(4001, 'bye now')
      })
    })
    const r = recorder()
    const socket = wsSocketFactory({ headers: { 'x-test': 'yes' } })(url, {
      ...r.handlers,
      onOpen: () => {
        r.log.push('open')
        socket.send('hello')
        expect(typeof socket.bufferedAmount).toBe('number')
      },
    })
    await r.closed
    expect(seen).toEqual({ header: 'yes', got: ['text hello'] })
    expect(r.log).toEqual([
      'open',
      'message {"ch":"a","é":1}',
      'message {"ch":"b","ü":2}',
      'message {\uFFFD}',
      'close 4001 bye now',
    ])
  })

  it('sends the close code and reason it is given, and does nothing once closing', async () => {
    const { wss, url } = await server()
    const got = new Promise<string>((resolve) =>
      wss.on('connection', (ws) => ws.on('close', (code, reason) => resolve(`${code} ${reason.toString()}`))),
    )
    const r = recorder()
    const socket = wsSocketFactory()(url, {
      ...r.handlers,
      onOpen: () => {
        socket.close(4000, 'client dropped the connection')
        socket.close(1000, 'again')
      },
    })
    expect(await got).toBe('4000 client dropped the connection')
    await r.closed
    expect(r.log).toEqual(['close 4000 client dropped the connection'])
  })

  it('reports an error, then a close with 1006, when nothing listens', async () => {
    const { wss, url } = await server()
    await new Promise<void>((r) => wss.close(() => r()))
    servers.length = 0
    const r = recorder()
    wsSocketFactory()(url, r.handlers)
    await r.closed
    expect(r.log).toEqual(['error', 'close 1006 '])
  })
})

/**
 * Startup against a hostile venue on loopback: a time endpoint that trickles its body forever used to
 * hang the bot before its first log line; an oversized time body was read whole; `time: 1` moved the
 * clock 56 years. Each now ends `connect` with a typed error within the configured bounds.
 */

import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { connect } from '../../../src/bot/startup/connect.ts'
import { systemClock } from '../../../src/clock.ts'
import { ClockSkewError, ResponseTooLargeError, TransportError } from '../../../src/errors.ts'
import { createLogger, SecretBag } from '../../../src/logging/logger.ts'
import { OPEN_GATE } from '../../../src/perps/throttle/requestGate.ts'
import { seededRandom } from '../../../src/random.ts'
import { Secrets, Settings } from '../../../src/settings/schema.ts'

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.()
})

async function venue(time: (res: ServerResponse) => void): Promise<string> {
  const server: Server = createServer((req, res) => {
    req.resume()
    if (req.url === '/v1/info/time') return time(res)
    res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  )
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

function start(url: string, perps: Record<string, unknown>) {
  const settings = Settings.parse({ instruments: [{ symbol: 'BTC-USDC', strategy: 'index-peg' }], perps })
  const lines: string[] = []
  return connect({
    settings,
    secrets: Secrets.parse({}),
    logger: createLogger({ destination: { write: (s: string) => lines.push(s) }, pretty: 'never' }),
    secretBag: new SecretBag(),
    baseClock: systemClock,
    random: seededRandom(1),
    perpsUrl: url,
    catalogueUrl: url,
    selfProvision: true,
    // No limiter: every request goes straight through.
    gate: OPEN_GATE,
  })
}

describe('connect against a hostile venue', () => {
  it('a time body that trickles forever fails each attempt at the request deadline', async () => {
    const url = await venue((res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write(' ')), 10)
      res.on('close', () => clearInterval(t))
    })
    const started = Date.now()
    const e = await start(url, { requestTimeoutMs: 150 }).catch((err: unknown) => err)
    expect(e).toBeInstanceOf(TransportError)
    expect(e).toMatchObject({ timedOut: true, path: '/v1/info/time' })
    // Three read attempts of 150 ms plus jittered backoff (≤ 200 + 400 ms): bounded, not forever
    // (the bound leaves a loaded machine room; the failure it catches is a hang).
    expect(Date.now() - started).toBeLessThan(10_000)
  })

  it('a 50 MB time body is cut at the configured cap', async () => {
    const url = await venue((res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      const block = Buffer.alloc(64 * 1024, 0x20)
      let sent = 0
      const pump = (): void => {
        while (sent < 50 * 1024 * 1024 && !res.destroyed) {
          sent += block.length
          if (!res.write(block)) return void res.once('drain', pump)
        }
        res.end()
      }
      pump()
    })
    const e = await start(url, { maxResponseBytes: 65_536 }).catch((err: unknown) => err)
    expect(e).toBeInstanceOf(ResponseTooLargeError)
    expect((e as ResponseTooLargeError).message).toContain('/v1/info/time')
    expect((e as ResponseTooLargeError).message).toContain('65536-byte cap')
  })

  it('a malformed time body is read again, not the end of the start', async () => {
    let reads = 0
    const url = await venue((res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      reads += 1
      res.end(reads === 1 ? '{"time":' : `{"time":${Date.now()}}`)
    })
    const e = await start(url, {}).catch((err: unknown) => err)
    // The clock synchronised (four reads: the malformed one, then three samples); what ends the start
    // now is the next read, which this venue does not serve.
    expect(reads).toBe(4)
    expect(String((e as Error).message)).not.toContain('/v1/info/time')
  })

  it('a venue time of 1 is refused before anything is signed', async () => {
    const url = await venue((res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('{"time":1}')
    })
    const e = await start(url, {}).catch((err: unknown) => err)
    expect(e).toBeInstanceOf(ClockSkewError)
    expect((e as ClockSkewError).maxOffsetMs).toBe(300_000)
  })
})

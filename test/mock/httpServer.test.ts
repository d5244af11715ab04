import { request as httpRequest } from 'node:http'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_BODY_BYTES, type RunningMockServer, startMockHttpServer } from '../../src/mock/httpServer.ts'

/** Sends `body` in 64 KiB chunks without a content-length (chunked encoding). */
function sendChunked(url: string, path: string, body: Buffer): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    })
    req.on('response', (res) => {
      let text = ''
      res.on('data', (c: Buffer) => {
        text += c.toString('utf8')
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }))
    })
    // The server answers before the body is complete and closes; a reset while writing is expected.
    req.on('error', (e) =>
      e.message.includes('EPIPE') || e.message.includes('ECONNRESET') ? undefined : reject(e),
    )
    let offset = 0
    const writeMore = (): void => {
      while (offset < body.length) {
        const chunk = body.subarray(offset, offset + 65_536)
        offset += chunk.length
        if (!req.write(chunk)) {
          req.once('drain', writeMore)
          return
        }
      }
      req.end()
    }
    writeMore()
  })
}

describe('mock HTTP adapter body limits', () => {
  let server: RunningMockServer
  let handled = 0
  beforeAll(async () => {
    server = await startMockHttpServer({
      handler: (req) => {
        handled++
        return { status: 200, body: { ok: true, size: JSON.stringify(req.body ?? null).length } }
      },
    })
  })
  afterAll(async () => {
    await server.close()
  })

  it('answers 413 in the route shape to a body over the limit (declared length)', async () => {
    const big = JSON.stringify({ label: 'x'.repeat(MAX_BODY_BYTES) })
    const before = handled
    const r = await request(`${server.url}/v1/account/proxy`, { method: 'POST', body: big })
    expect(r.statusCode).toBe(413)
    expect(await r.body.json()).toEqual({ status: 'err', error: 'request body too large' })
    const batch = await request(`${server.url}/v1/trade/orders`, { method: 'PATCH', body: big })
    expect(batch.statusCode).toBe(413)
    expect(await batch.body.json()).toEqual([{ status: 'err', error: 'request body too large' }])
    expect(handled).toBe(before)
  })

  it('answers 413 to a chunked body that grows past the limit, and keeps serving', async () => {
    const before = handled
    const r = await sendChunked(server.url, '/v1/account/referral', Buffer.alloc(MAX_BODY_BYTES * 3, 0x20))
    expect(r.status).toBe(413)
    expect(JSON.parse(r.text)).toEqual({ status: 'err', error: 'request body too large' })
    expect(handled).toBe(before)
    const ok = await request(`${server.url}/v1/info/time`, { method: 'POST', body: JSON.stringify({ a: 1 }) })
    expect(ok.statusCode).toBe(200)
    expect(await ok.body.json()).toEqual({ ok: true, size: 7 })
  })

  it('still answers 400 to a body that is not JSON, and accepts a body at the limit', async () => {
    const bad = await request(`${server.url}/v1/info/time`, { method: 'POST', body: '{nope' })
    expect(bad.statusCode).toBe(400)
    expect(await bad.body.json()).toEqual({ status: 'err', error: 'invalid JSON body' })
    const atLimit = JSON.stringify({ s: 'y'.repeat(MAX_BODY_BYTES - 8) })
    expect(atLimit.length).toBe(MAX_BODY_BYTES)
    const ok = await request(`${server.url}/v1/info/time`, { method: 'POST', body: atLimit })
    expect(ok.statusCode).toBe(200)
    await ok.body.json()
  })
})

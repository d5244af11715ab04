/**
 * The dashboard's payloads and event rate during a dry run (the figures in the README's Dashboard
 * section): the page and uPlot files, the `/events` stream gzipped and not, the snapshot a page gets
 * on connect. Usage: node --import tsx bench/dashboardPayload.ts  (env SPEED=20, MIN=5 virtual minutes)
 */
import { request } from 'node:http'
import { createGunzip } from 'node:zlib'
import { startBotOnMock } from '../src/sim/botOnMock.ts'

const speed = Number(process.env.SPEED ?? 20)
const run = await startBotOnMock({
  mock: { seed: 7, scenario: 'trending', clock: 'accelerated', speed, catalogue: { eventCount: 20 } },
  logLevel: 'error',
  ops: true,
})
const url = run.bot.opsUrl ?? ''
for (const p of ['/', '/assets/uplot.js', '/assets/uplot.css']) {
  const r = await fetch(url + p)
  const b = Buffer.from(await r.arrayBuffer())
  console.log(p, r.status, b.length)
}
function sse(
  gzip: boolean,
  untilVirtualMs: number,
): Promise<{ raw: number; first: number; msgs: number[]; wire: number }> {
  const t0 = run.mock.clock.now()
  return new Promise((resolve) => {
    const req = request(`${url}/events`, { headers: gzip ? { 'accept-encoding': 'gzip' } : {} }, (res) => {
      let wire = 0
      let buf = ''
      const msgs: number[] = []
      let first = 0
      res.on('data', (c: Buffer) => {
        wire += c.length
      })
      const body = gzip ? res.pipe(createGunzip()) : res
      body.setEncoding('utf8')
      body.on('data', (c: string) => {
        buf += c
        for (let e = buf.indexOf('\n\n'); e >= 0; e = buf.indexOf('\n\n')) {
          const n = Buffer.byteLength(buf.slice(0, e + 2))
          buf = buf.slice(e + 2)
          if (first === 0) first = n
          else msgs.push(n)
        }
        if (first > 0 && run.mock.clock.now() - t0 >= untilVirtualMs) {
          req.destroy()
          resolve({ raw: first + msgs.reduce((a, b) => a + b, 0), first, msgs, wire })
        }
      })
    })
    req.end()
  })
}
const w0 = Date.now()
const v0 = run.mock.clock.now()
const a = await sse(true, Number(process.env.MIN ?? 5) * 60_000)
const v = (run.mock.clock.now() - v0) / 1000
console.log('stream', {
  virtualS: v,
  wallS: (Date.now() - w0) / 1000,
  samples: a.msgs.length,
  perVirtualMin: (a.msgs.length / v) * 60,
  avgMsg: Math.round(a.msgs.reduce((x, y) => x + y, 0) / a.msgs.length),
  maxMsg: Math.max(...a.msgs),
  rawTotal: a.raw,
  wireTotal: a.wire,
})
const b = await sse(false, 1)
const c = await sse(true, 1)
console.log('snapshot on connect (bytes)', { snapshotRaw: b.first, snapshotGzipWire: c.wire })
await run.stop()

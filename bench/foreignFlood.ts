/**
 * The foreign-order flood of issue 34 in real time: another client on the account pushes
 * `--rate` (5,000) order changes a second for `--seconds` (30) into the bot's open-order book
 * (every push a new order, every third one gone again), while a loopback HTTP server answers a
 * `/livez` probe every 100 ms. Printed beside a same-run baseline without the flood: the probe's
 * latency, the event loop's delay, CPU time, heap, and the log's lines and bytes.
 *
 *   node --expose-gc --import tsx bench/foreignFlood.ts [--rate 5000] [--seconds 30]
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { createOpenOrderBook } from '../src/bot/orders/openOrderBook.ts'
import { createOrderOwnership } from '../src/bot/orders/orderOwnership.ts'
import { systemClock } from '../src/clock.ts'
import type { Order } from '../src/perps/schemas/orders.ts'

const { values } = parseArgs({
  options: { rate: { type: 'string', default: '5000' }, seconds: { type: 'string', default: '30' } },
})
const rate = Number(values.rate)
const seconds = Number(values.seconds)

const order = (oid: number, iid: number, status: Order['status']): Order => ({
  oid,
  iid,
  buy: oid % 2 === 0,
  p: '49990',
  qty: '0.01',
  tif: 'gtc',
  po: true,
  ro: false,
  rest: '0.01',
  fill: '0',
  cts: 0,
  uts: oid,
  status,
})

interface Figures {
  probes: number
  probeP50: number
  probeP99: number
  probeMax: number
  loopP99: number
  loopMax: number
  cpuMs: number
  heapMb: number
  logLines: number
  logKb: number
  pushes: number
  held: number
}

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0
}

async function run(withFlood: boolean): Promise<Figures> {
  const log = { lines: 0, bytes: 0 }
  const write = (obj: unknown, msg?: string): void => {
    log.lines += 1
    log.bytes += JSON.stringify(obj).length + (msg?.length ?? 0)
  }
  const ownership = createOrderOwnership({ orders: { tag: 'perpbot', foreign: 'leave' }, clock: systemClock })
  const book = createOpenOrderBook({
    perps: { getOpenOrders: async () => [] },
    clock: systemClock,
    instrumentIds: [1],
    isOurs: ownership.isOurs,
    logger: { info: write, warn: write },
  })
  const server = createServer((_req, res) => res.end('ok'))
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/livez`
  const latencies: number[] = []
  const loop = monitorEventLoopDelay({ resolution: 10 })
  loop.enable()
  const cpu0 = process.cpuUsage()
  const start = performance.now()
  const end = start + seconds * 1_000
  let pushes = 0
  let oid = 0
  const probe = setInterval(() => {
    const t0 = performance.now()
    void fetch(url)
      .then((r) => r.text())
      .then(() => latencies.push(performance.now() - t0))
      .catch(() => latencies.push(Number.POSITIVE_INFINITY))
  }, 100)
  await new Promise<void>((resolve) => {
    const tick = (): void => {
      const now = performance.now()
      if (now >= end) {
        resolve()
        return
      }
      if (withFlood) {
        // Catch up to the rate since the start, in one slice per turn of the event loop.
        const due = Math.floor(((now - start) / 1_000) * rate)
        for (; pushes < due; pushes++) {
          oid += 1
          book.observe(
            pushes % 3 === 2
              ? order(oid - 1, 100 + (pushes % 37), 'cancelled')
              : order(oid, 100 + (pushes % 37), 'open'),
          )
        }
      }
      setTimeout(tick, 5)
    }
    tick()
  })
  clearInterval(probe)
  loop.disable()
  const cpu = process.cpuUsage(cpu0)
  await new Promise<void>((r) => server.close(() => r()))
  globalThis.gc?.()
  return {
    probes: latencies.length,
    probeP50: pct(latencies, 50),
    probeP99: pct(latencies, 99),
    probeMax: Math.max(...latencies),
    loopP99: loop.percentile(99) / 1e6,
    loopMax: loop.max / 1e6,
    cpuMs: (cpu.user + cpu.system) / 1_000,
    heapMb: process.memoryUsage().heapUsed / 2 ** 20,
    logLines: log.lines,
    logKb: log.bytes / 1_024,
    pushes,
    held: book.snapshot().foreignCount,
  }
}

const { loadavg } = await import('node:os')
const load = loadavg()
  .map((x) => x.toFixed(1))
  .join(' ')
const baseline = await run(false)
const flood = await run(true)
const row = (name: string, f: Figures): string =>
  `| ${name} | ${f.pushes} | ${f.held} | ${f.probes} | ${f.probeP50.toFixed(1)} / ${f.probeP99.toFixed(1)} / ${f.probeMax.toFixed(1)} | ${f.loopP99.toFixed(1)} / ${f.loopMax.toFixed(1)} | ${f.cpuMs.toFixed(0)} | ${f.heapMb.toFixed(1)} | ${f.logLines} / ${f.logKb.toFixed(1)} |`
console.log(`foreign-order flood: ${rate}/s for ${seconds} s, load average ${load}`)
console.log(
  '| run | pushes | held | /livez probes | probe ms p50 / p99 / max | loop delay ms p99 / max | CPU ms | heap MiB | log lines / KB |',
)
console.log('|---|---|---|---|---|---|---|---|---|')
console.log(row('baseline (no flood)', baseline))
console.log(row('flood', flood))

/**
 * CPU per push tick on the mock's thread at 1,000 instruments (issue 36, point 4): while the mock
 * writes a tick (every ticker on `tickers::all`, every `bbo::{iid}`) to its subscribers, an order
 * command arriving on the same thread waits. The loopback mock (src/sim/botOnMock.ts, stepped clock,
 * calm scenario) with `ws` clients subscribed as the bot's pool is (100 channels a connection:
 * `tickers::all` and the BBOs over 11 connections); each round steps the market one second
 * (unmeasured), then measures `publishNow()` (the whole tick, written to the corked sockets) and
 * `publishNow([iid])` (one instrument's change push) with process.cpuUsage. `--frozen 1` freezes
 * every asset's regime, as the tick-to-trade bench does (only the change pushes move prices).
 *
 * `--tree DIR` (repeatable) loads the same modules from other checkouts (`git archive HEAD src |
 * tar -x -C /tmp/base`): each tree has its own mock and clients in this process and the trees take
 * turns round by round (a same-run baseline). Run both orders.
 *
 *   node --import tsx bench/mockTick.bench.ts [--instruments 1000] [--rounds 200] [--frozen 0] [--tree DIR]...
 */
import { fork } from 'node:child_process'
import { resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { WebSocket } from 'ws'
import { numberFlag, percentile } from './stats.ts'

const argv = process.argv.slice(2)
const trees = argv.flatMap((a, i) => (a === '--tree' ? [resolve(argv[i + 1] ?? '.')] : []))
if (trees.length === 0) trees.push(resolve('.'))
const N = numberFlag('instruments', 1_000)
const rounds = numberFlag('rounds', 200)
const frozen = numberFlag('frozen', 0) === 1
const warm = 30

interface Rig {
  tree: string
  round(i: number): { step: number; tick: number; change: number }
  drain(): Promise<void>
  received(): number
  close(): Promise<void>
}

async function rig(tree: string): Promise<Rig> {
  const url = (p: string): string => pathToFileURL(`${tree}/${p}`).href
  // biome-ignore lint/suspicious/noExplicitAny: a bench loading any tree's modules by path
  const M: any = {
    ...(await import(url('src/sim/botOnMock.ts'))),
    ...(await import(url('src/mock/perps/instruments.ts'))),
  }
  const specs = M.generateInstruments(N)
  const loop = await M.startLoopbackMock({
    mock: {
      seed: 3,
      scenario: 'calm',
      clock: 'stepped',
      startTime: 1_700_000_000_000,
      streamPushIntervalMs: 3_600_000,
      catalogue: { eventCount: 20 },
      exchange: { instruments: specs },
    },
    streams: true,
  })
  if (frozen) for (const s of specs) loop.mock.exchange.setRegime(s.baseAsset, 'frozen')
  const channels = ['tickers::all', ...specs.map((s: { id: number }) => `bbo::${s.id}`)]
  // The subscribers read in a child process: their reading is not on this thread's clock.
  const child = fork(fileURLToPath(import.meta.url), ['--client', loop.streamUrl], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  let received = 0
  child.on('message', (m: { received: number }) => {
    received = m.received
  })
  await new Promise<void>((ok) => child.once('message', () => ok()))
  child.send({ channels })
  await new Promise<void>((ok) => child.once('message', () => ok()))
  let moved = 1
  return {
    tree,
    round(i) {
      loop.mock.clock.advance(1_000)
      const s0 = process.cpuUsage()
      loop.mock.exchange.synced()
      const s1 = process.cpuUsage(s0)
      const a = process.cpuUsage()
      loop.stream.publishNow()
      const b = process.cpuUsage(a)
      moved = (moved % N) + 1
      loop.mock.exchange.setRegime(specs[moved - 1].baseAsset, 'frozen')
      const c = process.cpuUsage()
      loop.stream.publishNow([moved])
      const d = process.cpuUsage(c)
      void i
      return {
        step: (s1.user + s1.system) / 1_000,
        tick: (b.user + b.system) / 1_000,
        change: (d.user + d.system) / 1_000,
      }
    },
    async drain() {
      await new Promise((r) => setTimeout(r, 30))
    },
    received: () => received,
    async close() {
      child.kill()
      await loop.close()
    },
  }
}

/** `--client URL`: the subscribers, 100 channels a connection; says how many frames they read. */
async function client(streamUrl: string): Promise<void> {
  const send = (m: { received: number }): void => void process.send?.(m)
  send({ received: 0 })
  const { channels } = await new Promise<{ channels: string[] }>((ok) => process.once('message', ok))
  let received = 0
  let acked = 0
  for (let i = 0; i < channels.length; i += 100) {
    const ws = new WebSocket(streamUrl)
    await new Promise<void>((ok, fail) => {
      ws.once('open', () => ok())
      ws.once('error', fail)
    })
    ws.on('message', (d: Buffer) => {
      if (d[2] === 0x69) acked++
      else received++
    })
    ws.send(JSON.stringify({ id: i + 1, req: 'sub', chs: channels.slice(i, i + 100) }))
  }
  while (acked < Math.ceil(channels.length / 100)) await new Promise((r) => setTimeout(r, 5))
  send({ received })
  setInterval(() => send({ received }), 1_000)
}

const clientUrl = argv[argv.indexOf('--client') + 1]
if (argv.includes('--client') && clientUrl !== undefined) {
  await client(clientUrl)
} else {
  await main()
}

async function main(): Promise<void> {
  const rigs: Rig[] = []
  for (const t of trees) rigs.push(await rig(t))
  const ticks = rigs.map(() => [] as number[])
  const changes = rigs.map(() => [] as number[])
  const steps = rigs.map(() => [] as number[])
  for (let i = 0; i < warm + rounds; i++)
    for (const [k, r] of rigs.entries()) {
      const m = r.round(i)
      await r.drain()
      if (i >= warm) {
        ticks[k]?.push(m.tick)
        changes[k]?.push(m.change)
        steps[k]?.push(m.step)
      }
    }
  const mean = (xs: number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length
  for (const [k, r] of rigs.entries()) {
    const t = (ticks[k] ?? []).sort((x, y) => x - y)
    const c = (changes[k] ?? []).sort((x, y) => x - y)
    const st = (steps[k] ?? []).sort((x, y) => x - y)
    console.log(
      `${r.tree}: market step (unmeasured in tick) p50 ${percentile(st, 50).toFixed(3)}; tick CPU ms p50 ${percentile(t, 50).toFixed(3)} mean ${mean(t).toFixed(3)} p90 ${percentile(t, 90).toFixed(3)}; change push p50 ${percentile(c, 50).toFixed(3)} mean ${mean(c).toFixed(3)}; frames read ${r.received()}`,
    )
  }
  for (const r of rigs) await r.close()
}

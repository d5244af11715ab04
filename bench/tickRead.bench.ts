/**
 * CPU per venue tick of the bot's stream-reading path at 1,000 instruments (issue 36, point 4), in
 * process: the mock's exact frame text (`{"ch":…,"ts":…,"sq":…,"data":…}`, src/mock/stream/) of one
 * tick — every ticker on `tickers::all`, every `bbo::{iid}`, the portfolio — handed to stream clients
 * over a fake socket (the frames, the intake, the sequence checks, freshness, the push events), then
 * the bot's routes (`STREAM_ROUTES` with `botChangeFilter`, the route queue) up to the actors' inputs,
 * which only count the events (the instrument machine is measured by bench:machine). `--moved` of the
 * instruments move their index and BBO each tick, the rest repeat. The frames are decoded from bytes,
 * as a socket's are (flat strings), outside the measured time.
 *
 * `--tree DIR` (repeatable) loads the same modules from other checkouts (e.g. `git archive main src |
 * tar -x -C .scratch/base`; `--tree dist`: the compiled bot): each tree gets its own clients and filter
 * in this process and the trees take turns tick by tick, so the load hits them alike (a same-run
 * baseline; separate processes varied 2x in CPU per tick at load 3-5). The order of the trees is not
 * neutral: in an A/A run the second tree read 10-15 % faster (load 3-4). Run both orders and take the
 * geometric mean of the two ratios.
 *
 *   node --import tsx bench/tickRead.bench.ts [--instruments 1000] [--ticks 300] [--moved 1] [--tree DIR]...
 */
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { numberFlag } from './stats.ts'

type Mod = Record<string, unknown>
const argv = process.argv.slice(2)
const trees = argv.flatMap((a, i) => (a === '--tree' ? [resolve(argv[i + 1] ?? '.')] : []))
if (trees.length === 0) trees.push(resolve('.'))

const instruments = numberFlag('instruments', 1_000)
const ticks = numberFlag('ticks', 300)
const moved = numberFlag('moved', 1)
const warmTicks = 50
const ids = Array.from({ length: instruments }, (_, i) => i + 1)
const traded = new Set(ids)
const START_MS = 1_700_000_000_000

/** A module of the tree: its TypeScript source, or its compiled JavaScript (`--tree dist`). */
async function load(tree: string, path: string): Promise<Mod> {
  const file = existsSync(`${tree}/${path}`) ? `${tree}/${path}` : `${tree}/${path.replace(/\.ts$/, '.js')}`
  return import(pathToFileURL(file).href)
}

interface Fake {
  handlers: { onOpen(): void; onMessage(text: string): void }
  sent: { id: number }[]
}

interface Rig {
  tree: string
  tick(frames: { pub: string[]; priv: string[] }): number
  counts(): string
}

async function rig(tree: string): Promise<Rig> {
  const mods = await Promise.all(
    [
      'src/bot/inputs/streams/streamRoutes.ts',
      'src/bot/inputs/streams/routeQueue.ts',
      'src/perps/stream/streamClient.ts',
      'src/mock/virtualClock.ts',
      'src/random.ts',
    ].map((p) => load(tree, p)),
  )
  // biome-ignore lint/suspicious/noExplicitAny: a bench loading any tree's modules by path
  const M: any = Object.assign({}, ...mods)
  const clock = new M.VirtualClock({ mode: 'stepped', startMs: START_MS })
  let routedNow = 0
  let routedLater = 0
  let portfolios = 0
  const later: (() => void)[] = []
  const queue = M.createRouteQueue({
    route: () => {
      routedLater++
    },
    schedule: (fn: () => void) => later.push(fn),
  })
  const targets = {
    now: () => clock.now(),
    traded,
    route: (routed: readonly number[]) => {
      routedNow += routed.length
    },
    defer: queue.later,
    klinesKept: 0,
    changed: M.botChangeFilter(() => clock.now(), { staleIndexMs: 15_000, staleMarginMs: 30_000 }),
    touchRenewed: () => {},
    orders: { observe: () => {} },
    account: {
      observePortfolio: () => {
        portfolios++
      },
      observeFill: () => {},
      observeWithdrawal: () => {},
    },
  }
  const client = (channels: string[], credentials: boolean): Fake => {
    const fake: Fake = { handlers: { onOpen() {}, onMessage() {} }, sent: [] }
    const c = new M.StreamClient({
      url: 'ws://127.0.0.1:1/v1/ws',
      clock,
      random: M.seededRandom(1),
      socketFactory: (_url: string, handlers: Fake['handlers']) => {
        fake.handlers = handlers
        return { send: (t: string) => fake.sent.push(JSON.parse(t)), close: () => {}, bufferedAmount: 0 }
      },
      credentials: credentials
        ? { proxy: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', secret: 's3cret' }
        : undefined,
      limits: { maxSubscriptions: 10_000 },
      acceptInstrument: (iid: number) => traded.has(iid),
    })
    c.onPush((push: unknown) => M.routePush(M.STREAM_ROUTES, push, targets))
    c.subscribe(channels)
    c.start()
    fake.handlers.onOpen()
    // Acknowledge auth and every subscription.
    for (let i = 0; i < 10 && fake.sent.length > 0; i++)
      for (const f of fake.sent.splice(0))
        fake.handlers.onMessage(JSON.stringify({ id: f.id, data: { status: 'ok' } }))
    return fake
  }
  const pub = client(['tickers::all', ...ids.map((i) => `bbo::${i}`)], false)
  const priv = client(['portfolio'], true)
  return {
    tree,
    tick(frames) {
      clock.advance(1_000)
      const start = process.cpuUsage()
      for (const text of frames.pub) pub.handlers.onMessage(text)
      for (const text of frames.priv) priv.handlers.onMessage(text)
      for (let i = 0; i < 100_000 && later.length > 0; i++) later.shift()?.()
      const used = process.cpuUsage(start)
      return (used.user + used.system) / 1_000
    },
    counts: () => `routed at once ${routedNow}, deferred ${routedLater}, portfolios ${portfolios}`,
  }
}

const sq = new Map<string, number>()
const frame = (ch: string, ts: number, data: unknown): string => {
  const n = (sq.get(ch) ?? 0) + 1
  sq.set(ch, n)
  // Decoded from bytes, as a socket's frame is: a flat string, not the concatenation that built it.
  return Buffer.from(
    `{"ch":${JSON.stringify(ch)},"ts":${ts},"sq":${n},"data":${JSON.stringify(data)}}`,
  ).toString()
}
const price = (iid: number, step: number): string => (100 + iid + step * 0.01).toFixed(2)

/** Tick `t`'s frames, as the mock writes them: tickers, then BBOs, then the portfolio. */
function tickFrames(t: number): { pub: string[]; priv: string[] } {
  const ts = START_MS + (t + 1) * 1_000
  const out: string[] = []
  const step = (iid: number): number => (iid <= moved ? t : 0)
  for (const iid of ids) {
    const idx = price(iid, step(iid))
    out.push(
      frame('tickers::all', ts, {
        iid,
        idx,
        mark: idx,
        last: idx,
        mid: idx,
        oi: '1250.5',
        fr: '0.0000125',
        nxf: 1_700_003_600_000,
      }),
    )
  }
  for (const iid of ids) {
    const mid = 100 + iid + step(iid) * 0.01
    out.push(
      frame(`bbo::${iid}`, ts, {
        iid,
        bp: (mid - 0.01).toFixed(2),
        bq: '3.5',
        ap: (mid + 0.01).toFixed(2),
        aq: '4.25',
      }),
    )
  }
  const portfolio = frame('portfolio', ts, {
    positions: [],
    margin: {
      total_account_value: '100000',
      available_order_margin: '99000',
      total_initial_margin: (1000 + (t % 7) * 0.000001).toFixed(6),
      total_maintenance_margin: '500',
      total_position_value: '0',
    },
    withdrawable: '99000',
    in_liquidation: false,
    timestamp: ts,
  })
  return { pub: out, priv: [portfolio] }
}

const rigs: Rig[] = []
for (const tree of trees) rigs.push(await rig(tree))
const cpu: number[][] = rigs.map(() => [])
for (let t = 0; t < warmTicks + ticks; t++) {
  const frames = tickFrames(t)
  // Each tree goes first in turn.
  for (let k = 0; k < rigs.length; k++) {
    const i = (t + k) % rigs.length
    const used = rigs[i]?.tick(frames) ?? 0
    if (t >= warmTicks) cpu[i]?.push(used)
  }
}
const here = resolve('.')
for (const [i, r] of rigs.entries()) {
  const c = (cpu[i] ?? []).sort((a, b) => a - b)
  const q = (p: number): number => c[Math.min(c.length - 1, Math.floor(p * c.length))] ?? Number.NaN
  const mean = c.reduce((a, b) => a + b, 0) / c.length
  console.log(
    `tickRead ${r.tree === here ? 'this tree' : r.tree.replace(`${here}/`, '')}: ${instruments} instruments, ${ticks} ticks (${2 * instruments + 1} frames each, ${moved} moved): CPU per tick mean ${mean.toFixed(3)} / p50 ${q(0.5).toFixed(3)} / p90 ${q(0.9).toFixed(3)} / max ${q(1).toFixed(3)} ms · ${r.counts()}`,
  )
}

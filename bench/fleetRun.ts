/**
 * Fleet run (standalone, not in `npm test`): `node --import tsx bench/fleetRun.ts [--seconds 45]`.
 * Real `perpbot run --live --fleet` processes (three bots, two accounts, ACCOUNT=auto: one warm
 * standby) against one loopback mock that counts the request weight of every process on its single
 * IP, with a real redis-server. The budget window is compressed (FLEET_WINDOW_MS 10 s) so a short run
 * spans several windows. Midway the holder of acct-a is killed with SIGKILL.
 * Prints: the most weight that ARRIVED at the mock in any window (against the fleet budget), the
 * hand-over time (kill → the standby's first order for acct-a), and whether any order of the dead
 * holder's epoch arrived after the successor's first.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseClientOrderId } from '../src/perps/orderTag.ts'
import { endpointFor, PERPS_WEIGHTS } from '../src/perps/weights.ts'
import { startLoopbackMock } from '../src/sim/botOnMock.ts'
import { registerMockProxy } from '../test/helpers/mockAccount.ts'
import { startRedis } from '../test/helpers/redis.ts'

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? Number(process.argv[i + 1]) : dflt
}
const SECONDS = arg('seconds', 45)
const WINDOW_MS = arg('window', 10) * 1000
const BUDGET = arg('budget', 120)
const TTL_MS = 3_000
/** `--logs DIR`: every bot's stdout kept as DIR/<bot>.log (the hand-over's timeline). */
const LOGS = ((i) => (i > 0 ? process.argv[i + 1] : undefined))(process.argv.indexOf('--logs'))
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

interface Arrival {
  endpoint: string
  at: number
  weight: number
  proxy: string
  coids: string[]
}
const arrivals: Arrival[] = []
const redis = await startRedis()
const loop = await startLoopbackMock({
  mock: { seed: 5, scenario: 'calm', clock: 'real', catalogue: { eventCount: 20 }, rateLimits: false },
  onRequest: (req) => {
    const ep = endpointFor(req.method, req.path)
    if (ep === undefined) return
    const body = req.body as { op?: { args?: unknown } } | undefined
    const args = Array.isArray(body?.op?.args) ? (body.op.args as { c?: unknown }[]) : []
    const q = (k: string): number | undefined => (req.query.has(k) ? Number(req.query.get(k)) : undefined)
    const weight = PERPS_WEIGHTS[ep].request({
      n: args.length || undefined,
      instrumentId: q('instrument_id'),
      orderId: q('order_id'),
    })
    arrivals.push({
      endpoint: ep,
      at: Date.now(),
      weight,
      proxy: req.headers['polymarket-proxy'] ?? '',
      coids: ep === 'createOrders' ? args.flatMap((a) => (typeof a.c === 'string' ? [a.c] : [])) : [],
    })
  },
})
const dir = mkdtempSync(join(tmpdir(), 'perpbot-fleet-run-'))
const secrets = join(dir, 'secrets')
mkdirSync(secrets)
const accounts = ['acct-a', 'acct-b']
for (const a of accounts) {
  const acct = await registerMockProxy(loop.server.url, a)
  writeFileSync(join(secrets, `${a}.proxy-private-key`), acct.key)
  writeFileSync(join(secrets, `${a}.proxy-secret`), acct.credentials.secret)
}

interface Bot {
  name: string
  proc: ChildProcess
  holding: { account: string; epoch: number; at: number }[]
  /** When the bot logged that it runs (its start-up done). */
  running: number[]
  exited: Promise<number | null>
}
function startBot(name: string): Bot {
  const overlay = join(dir, `${name}.json`)
  writeFileSync(overlay, JSON.stringify({ mode: 'live', ops: { stateDir: join(dir, `${name}-state`) } }))
  const proc = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/cli/main.ts',
      'run',
      '--live',
      '--fleet',
      '--config',
      overlay,
      '--ops-port',
      '0',
    ],
    {
      env: {
        PATH: process.env.PATH ?? '',
        HOSTNAME: name,
        PERPS_URL: loop.server.url,
        PERPS_WS_URL: loop.streamUrl,
        CATALOGUE_URL: loop.server.url,
        FLEET_REDIS_URL: redis.url,
        FLEET_ACCOUNTS: accounts.join(','),
        ACCOUNT: 'auto',
        FLEET_EGRESS_ID: 'bench',
        FLEET_BUDGET: String(BUDGET),
        FLEET_WINDOW_MS: String(WINDOW_MS),
        FLEET_LEASE_TTL_MS: String(TTL_MS),
        FLEET_SECRETS_DIR: secrets,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  const bot: Bot = {
    name,
    proc,
    holding: [],
    running: [],
    exited: new Promise((r) => proc.once('close', (c) => r(c))),
  }
  let buf = ''
  if (LOGS !== undefined) mkdirSync(LOGS, { recursive: true })
  proc.stdout?.on('data', (d: Buffer) => {
    if (LOGS !== undefined) appendFileSync(join(LOGS, `${name}.log`), d)
    buf += d.toString()
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i)
      buf = buf.slice(i + 1)
      const m = /fleet: holding (\S+) \(epoch (\d+)\)/.exec(line)
      if (m) bot.holding.push({ account: m[1] ?? '', epoch: Number(m[2]), at: Date.now() })
      if (/perpbot live running/.test(line)) bot.running.push(Date.now())
      if (/"level":(50|60)/.test(line)) process.stderr.write(`${name}: ${line.slice(0, 300)}\n`)
    }
  })
  proc.stderr?.on('data', (d: Buffer) =>
    process.stderr.write(`${name} stderr: ${d.toString().slice(0, 300)}`),
  )
  return bot
}

const t0 = Date.now()
const bots = ['bot-1', 'bot-2', 'bot-3'].map(startBot)
try {
  // Bounded: until two bots hold and run, at most 120 s (tsx start-up on a loaded machine).
  for (let i = 0; i < 1200 && bots.filter((b) => b.running.length > 0).length < 2; i++) await sleep(100)
  const started = Date.now() - t0
  // The kill comes in steady state: at least one window after the start-ups (the preflights of
  // every candidate account weigh a few hundred), so the hand-over does not wait for their weight.
  await sleep(Math.max((SECONDS * 1000) / 2, WINDOW_MS + 2_000))
  const victim = bots.find((b) => b.holding.at(-1)?.account === 'acct-a')
  if (victim === undefined) throw new Error('no holder of acct-a')
  const oldEpoch = victim.holding.at(-1)?.epoch ?? 0
  const killedAt = Date.now()
  victim.proc.kill('SIGKILL')
  let successor: { account: string; epoch: number; at: number } | undefined
  for (let i = 0; i < 300 && successor === undefined; i++) {
    await sleep(100)
    successor = bots
      .flatMap((b) => (b === victim ? [] : b.holding))
      .find((h) => h.account === 'acct-a' && h.at > killedAt)
  }
  await sleep((SECONDS * 1000) / 2)
  for (const b of bots) b.proc.kill('SIGTERM')
  await Promise.all(bots.map((b) => Promise.race([b.exited, sleep(20_000)])))

  // Weight that arrived at the mock in every window (each window ending at an arrival, from `from`).
  const sorted = [...arrivals].sort((a, b) => a.at - b.at)
  let worst: Arrival[] = []
  const maxWindow = (from: number, to: number): number => {
    let max = 0
    let sum = 0
    let lo = 0
    const inRange = sorted.filter((a) => a.at >= from && a.at <= to)
    for (const a of inRange) {
      sum += a.weight
      while ((inRange[lo]?.at ?? a.at) <= a.at - WINDOW_MS) sum -= inRange[lo++]?.weight ?? 0
      if (sum > max) {
        max = sum
        worst = inRange.slice(lo, inRange.indexOf(a) + 1)
      }
    }
    return max
  }
  const max = maxWindow(0, Number.POSITIVE_INFINITY)
  const byEndpoint = new Map<string, number>()
  for (const a of worst) byEndpoint.set(a.endpoint, (byEndpoint.get(a.endpoint) ?? 0) + a.weight)
  const worstWindow = [...byEndpoint].map(([e, w]) => `${e} ${w}`).join(', ')
  const steady = maxWindow(t0 + started, killedAt)
  const orders = sorted.flatMap((a) =>
    a.coids.map((c) => ({ at: a.at, proxy: a.proxy, id: parseClientOrderId(c) })),
  )
  const newEpoch = successor?.epoch
  const firstNew = orders.find((o) => o.id?.epoch === newEpoch)
  // Epochs come from Redis's clock in seconds: two accounts taken in one second share one, so the
  // old epoch's orders are counted on acct-a's proxy only.
  const lateOld =
    firstNew === undefined
      ? []
      : orders.filter((o) => o.at >= firstNew.at && o.id?.epoch === oldEpoch && o.proxy === firstNew.proxy)
  const allCoids = sorted.flatMap((a) => a.coids)
  console.log(
    `# fleet run: 3 bots (ACCOUNT=auto) on 2 accounts, one mock, budget ${BUDGET} per ${WINDOW_MS / 1000} s window, lease TTL ${TTL_MS / 1000} s`,
  )
  console.log(`start-up until two bots held an account and ran: ${(started / 1000).toFixed(1)} s`)
  console.log(
    `requests at the mock: ${arrivals.length}, weight ${arrivals.reduce((s, a) => s + a.weight, 0)}`,
  )
  console.log(
    `most weight arrived in any ${WINDOW_MS / 1000} s window, whole run (start-ups included): ${max} of ${BUDGET}`,
  )
  console.log(`  its weight by endpoint: ${worstWindow}`)
  console.log(`  from two bots holding to the kill (no start-up in it): ${steady} of ${BUDGET}`)
  const tail = firstNew === undefined ? 0 : maxWindow(firstNew.at + WINDOW_MS, Number.POSITIVE_INFINITY)
  console.log(`  from one window after the successor's first order to the end: ${tail} of ${BUDGET}`)
  console.log(
    `kill -9 of acct-a's holder (epoch ${oldEpoch}): standby held it after ${successor ? successor.at - killedAt : 'never'} ms (epoch ${newEpoch}); first order of the new epoch ${firstNew ? firstNew.at - killedAt : 'never'} ms after the kill`,
  )
  const succ = bots.find((b) => b !== victim && b.holding.some((h) => h === successor))
  const ranAt = succ?.running.find((t) => t > killedAt)
  console.log(
    `  the successor: held ${successor ? successor.at - killedAt : '-'} ms, running ${ranAt === undefined ? 'never' : `${ranAt - killedAt} ms`} after the kill; its requests until its first order: ${sorted
      .filter((a) => a.proxy === firstNew?.proxy && a.at > killedAt && a.at <= (firstNew?.at ?? 0))
      .map((a) => `${a.endpoint}+${a.at - killedAt}`)
      .join(' ')}`,
  )
  console.log(
    `orders of the old epoch after the new epoch's first: ${lateOld.length}; duplicate coids: ${allCoids.length - new Set(allCoids).size}`,
  )
} finally {
  for (const b of bots) b.proc.kill('SIGKILL')
  await loop.close()
  await redis.stop()
  rmSync(dir, { recursive: true, force: true })
}

/**
 * Fleet run (standalone, not in `npm test`): `node --import tsx bench/fleetRun.ts [--seconds 30]
 * [--window 10] [--budget 120] [--logs DIR] [--mock-process [--mock-nice -5]] [--guard MS]`. Real `perpbot run --live --fleet` processes (three
 * bots, two accounts, ACCOUNT=auto: one warm standby) against one loopback mock that counts the
 * request weight of every process on its single IP, with a real redis-server. The budget window is
 * compressed so a short run spans several windows. Once both holders run, the third stands by, and
 * one window has passed since (the start-ups' weight has left it), the holder of acct-a is killed
 * with SIGKILL.
 * Prints: the most weight that ARRIVED at the mock in any window (against the fleet budget), the
 * hand-over (kill → the standby holds the lease → runs → its first order on acct-a), and whether any
 * order of the dead holder's epoch was placed after the successor's first.
 * `--logs DIR` keeps every bot's stdout as DIR/<bot>.log (the hand-over's timeline).
 * `--mock-process` runs the counting mock in its own process at nice `--mock-nice` (default -5; we
 * are root), as the venue is, instead of on the bench's own event loop; either way the bench also
 * copies Redis's admission log (re-stamps included) as it goes and prints its worst window beside
 * the arrivals', so an excess at the mock can be told from one in the admissions.
 */
import { fork } from 'node:child_process'
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { loadavg, setPriority, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Redis } from 'ioredis'
import { budgetKeys } from '../src/fleet/budgetScripts.ts'
import {
  type Arrival,
  type FleetBot,
  fleetRig,
  type MockEndpoints,
  maxWindowWeight,
  type OrderEvent,
  startCountingMock,
} from '../test/fleet/fleetBots.ts'
import { startRedis } from '../test/helpers/redis.ts'
import { flowLags, quantile, weightIn, worstWindow } from './admissionLag.ts'

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? Number(process.argv[i + 1]) : dflt
}
const SECONDS = arg('seconds', 30)
const WINDOW_MS = arg('window', 10) * 1000
const BUDGET = arg('budget', 120)
const TTL_MS = 3_000
const LOGS = ((i) => (i > 0 ? process.argv[i + 1] : undefined))(process.argv.indexOf('--logs'))
const MOCK_PROCESS = process.argv.includes('--mock-process')
const MOCK_NICE = arg('mock-nice', -5)
/** The same-session baseline: `--guard 0` is the code before the arrival guard. */
const GUARD = ((i) => (i > 0 ? process.argv[i + 1] : undefined))(process.argv.indexOf('--guard'))
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))
const ACCOUNTS = ['acct-a', 'acct-b']
const EGRESS = 'bench'

interface CountedMock extends MockEndpoints {
  /** Stops the mock and hands over what it counted. */
  finish(): Promise<{ arrivals: Arrival[]; orders: OrderEvent[] }>
}

async function inProcessMock(secretsDir: string): Promise<CountedMock> {
  const m = await startCountingMock()
  await m.accounts(ACCOUNTS, secretsDir)
  return {
    loop: m.loop,
    async finish() {
      await m.close()
      return { arrivals: m.arrivals, orders: m.orders }
    },
  }
}

/** The mock in its own process (bench/countingMockProcess.ts) at nice MOCK_NICE. */
async function ownProcessMock(secretsDir: string): Promise<CountedMock> {
  const child = fork(
    fileURLToPath(new URL('./countingMockProcess.ts', import.meta.url)),
    [secretsDir, ...ACCOUNTS],
    {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  )
  if (child.pid !== undefined) setPriority(child.pid, MOCK_NICE)
  const next = (): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('the mock process did not answer within 60 s')), 60_000)
      child.once('message', (m) => {
        clearTimeout(t)
        resolve(m)
      })
    })
  const hello = (await next()) as { url: string; streamUrl: string | undefined }
  return {
    loop: { server: { url: hello.url }, streamUrl: hello.streamUrl },
    async finish() {
      const done = next()
      child.send('stop')
      return (await done) as { arrivals: Arrival[]; orders: OrderEvent[] }
    },
  }
}

/**
 * A copy of Redis's admission log for the whole run (entries leave Redis one window after their
 * stamp): every member with its latest stamp (a re-stamp moves it later), in ms.
 */
function recordAdmissionLog(url: string): { stop(): Promise<{ at: number; weight: number }[]> } {
  const client = new Redis(url, { maxRetriesPerRequest: 1 })
  const seen = new Map<string, number>()
  const key = budgetKeys('perpbot', EGRESS).log
  let stopped = false
  const poll = async (): Promise<void> => {
    // Bounded: until stop(); every 200 ms, far inside the shortest window.
    while (!stopped) {
      try {
        const r = await client.zrange(key, '0', '-1', 'WITHSCORES')
        for (let i = 0; i + 1 < r.length; i += 2) {
          const member = r[i] ?? ''
          const us = Number(r[i + 1])
          seen.set(member, Math.max(seen.get(member) ?? 0, us))
        }
      } catch {
        // Redis busy or away for a moment: the next poll catches up (entries live a window).
      }
      await sleep(200)
    }
  }
  const polling = poll()
  return {
    async stop() {
      stopped = true
      await polling
      client.disconnect()
      return [...seen].map(([member, us]) => ({ at: us / 1000, weight: Number(member.split(':')[1]) }))
    },
  }
}

interface Watched {
  bot: FleetBot
  holding: { account: string; epoch: number; at: number }[]
  running: number[]
  /** When it logged that it stands by (its warm-up done). */
  standing: number[]
}

const redis = await startRedis()
const secretsDir = mkdtempSync(join(tmpdir(), 'perpbot-fleet-run-secrets-'))
const mock = MOCK_PROCESS ? await ownProcessMock(secretsDir) : await inProcessMock(secretsDir)
const admissions = recordAdmissionLog(redis.url)
const rig = fleetRig({
  mock,
  redisUrl: redis.url,
  env: {
    FLEET_SECRETS_DIR: secretsDir,
    FLEET_ACCOUNTS: ACCOUNTS.join(','),
    ACCOUNT: 'auto',
    FLEET_EGRESS_ID: EGRESS,
    FLEET_BUDGET: String(BUDGET),
    FLEET_WINDOW_MS: String(WINDOW_MS),
    ...(GUARD === undefined ? {} : { FLEET_ARRIVAL_GUARD_MS: GUARD }),
    FLEET_LEASE_TTL_MS: String(TTL_MS),
  },
})
const load0 = loadavg()[0] ?? 0
let loadMax = load0
const loadTimer = setInterval(() => {
  loadMax = Math.max(loadMax, loadavg()[0] ?? 0)
}, 1_000)
let finished: { arrivals: Arrival[]; orders: OrderEvent[] } | undefined
try {
  if (LOGS !== undefined) mkdirSync(LOGS, { recursive: true })
  const t0 = Date.now()
  const bots: Watched[] = ['bot-1', 'bot-2', 'bot-3'].map((name) => {
    const w: Watched = { bot: rig.start(name, {}), holding: [], running: [], standing: [] }
    w.bot.proc.stdout?.on('data', (d: Buffer) => {
      if (LOGS !== undefined) appendFileSync(join(LOGS, `${name}.log`), d)
      for (const line of d.toString().split('\n')) {
        const m = /fleet: holding (\S+) \(epoch (\d+)\)/.exec(line)
        if (m) w.holding.push({ account: m[1] ?? '', epoch: Number(m[2]), at: Date.now() })
        if (line.includes('perpbot live running')) w.running.push(Date.now())
        if (line.includes('fleet: standing by')) w.standing.push(Date.now())
        if (/"level":(50|60)/.test(line)) process.stderr.write(`${name}: ${line.slice(0, 300)}\n`)
      }
    })
    return w
  })
  // Bounded: until two bots hold and run and the third stands by (warm: its preflight of every
  // candidate done), at most 120 s (tsx start-ups on a loaded machine).
  const settled = (): boolean =>
    bots.filter((b) => b.running.length > 0).length >= 2 && bots.some((b) => b.standing.length > 0)
  for (let i = 0; i < 1200 && !settled(); i++) await sleep(100)
  const started = Date.now() - t0
  // Steady state: one window after the start-ups (the standby's preflight of every candidate weighs
  // about 130), so the hand-over does not wait for their weight.
  await sleep(Math.max((SECONDS * 1000) / 2, WINDOW_MS + 2_000))
  const victim = bots.find((b) => b.holding.at(-1)?.account === 'acct-a')
  if (victim === undefined) throw new Error('no holder of acct-a')
  const oldEpoch = victim.holding.at(-1)?.epoch ?? 0
  const killedAt = Date.now()
  victim.bot.proc.kill('SIGKILL')
  let successor: { w: Watched; held: number; epoch: number } | undefined
  for (let i = 0; i < 300 && successor === undefined; i++) {
    await sleep(100)
    for (const w of bots) {
      const h = w === victim ? undefined : w.holding.find((x) => x.account === 'acct-a' && x.at > killedAt)
      if (h !== undefined) successor = { w, held: h.at, epoch: h.epoch }
    }
  }
  await sleep((SECONDS * 1000) / 2)
  for (const b of bots) b.bot.proc.kill('SIGTERM')
  await Promise.all(bots.map((b) => b.bot.exited(20_000)))
  const log = await admissions.stop()
  finished = await mock.finish()
  const { arrivals, orders } = finished

  const ranAt = successor?.w.running.find((t) => t > killedAt)
  // The first order the successor placed on acct-a (the mock's own order events, keyed by owner).
  const acctA = orders.filter((o) => o.account === 'acct-a')
  const perAccount = new Map<string, number>()
  for (const o of orders) perAccount.set(o.account, (perAccount.get(o.account) ?? 0) + 1)
  console.log(
    `order events at the mock by account: ${[...perAccount].map(([a, n]) => `${a.slice(0, 12)} ${n}`).join(', ') || 'none'}; acct-a's epochs: ${[...new Set(acctA.map((o) => o.epoch))].join(', ')}`,
  )
  const firstNew = acctA.find((o) => o.epoch === successor?.epoch && o.at > killedAt)
  const created = new Set<number>()
  const lateOld = acctA.filter((o) => {
    const isNew = !created.has(o.oid)
    created.add(o.oid)
    return isNew && o.epoch === oldEpoch && firstNew !== undefined && o.at >= firstNew.at
  })
  const coids = arrivals.flatMap((a) => a.coids)
  const worst = maxWindowWeight(arrivals, WINDOW_MS)
  const steady = maxWindowWeight(arrivals, WINDOW_MS, t0 + started + WINDOW_MS, killedAt)
  const ms = (t: number | undefined): string => (t === undefined ? 'never' : `${t - killedAt} ms`)
  console.log(
    `# fleet run: 3 bots (ACCOUNT=auto) on 2 accounts, one mock (${MOCK_PROCESS ? `its own process, nice ${MOCK_NICE}` : 'in the bench process'}), budget ${BUDGET} per ${WINDOW_MS / 1000} s window, lease TTL ${TTL_MS / 1000} s, arrival guard ${GUARD === undefined ? 'default' : `${GUARD} ms`}; load average ${load0.toFixed(1)} at the start, ${loadMax.toFixed(1)} at most, ${(loadavg()[0] ?? 0).toFixed(1)} at the end`,
  )
  console.log(`start-up until two bots ran and the third stood by: ${(started / 1000).toFixed(1)} s`)
  console.log(
    `requests at the mock: ${arrivals.length}, weight ${arrivals.reduce((s, a) => s + a.weight, 0)}`,
  )
  console.log(
    `most weight arrived in any ${WINDOW_MS / 1000} s window, start-ups included: ${worst} of ${BUDGET}`,
  )
  console.log(`  from one window after the start-ups to the kill: ${steady} of ${BUDGET}`)
  console.log(
    `admission log in Redis (stamps on Redis's clock, re-stamps included): ${log.length} admissions, weight ${log.reduce((s, a) => s + a.weight, 0)}; most in any window, start-ups included: ${maxWindowWeight(log, WINDOW_MS)} of ${BUDGET}`,
  )
  // The same span on both clocks: the mock's worst window, and what Redis stamped inside it.
  const w = worstWindow(arrivals, WINDOW_MS)
  const inW = arrivals.filter((a) => a.at > w.end - WINDOW_MS && a.at <= w.end)
  const byEndpoint = new Map<string, number>()
  for (const a of inW) byEndpoint.set(a.endpoint, (byEndpoint.get(a.endpoint) ?? 0) + a.weight)
  console.log(
    `  the mock's worst window ends ${((w.end - t0) / 1000).toFixed(2)} s after the first bot started: ${w.weight} arrived, Redis stamped ${weightIn(log, w.end - WINDOW_MS, w.end)} in the same span; arrived by endpoint: ${[...byEndpoint].map(([e, n]) => `${e} ${n}`).join(', ')}`,
  )
  // From the first bot's start (the bench's own account registration arrives before it) to the kill.
  const runAdmissions = log.filter((a) => a.at >= t0 && a.at <= killedAt)
  const runArrivals = arrivals.filter((a) => a.at >= t0 && a.at <= killedAt)
  const flow = flowLags(runAdmissions, runArrivals)
  const inFlight = (t: number): number => weightIn(runAdmissions, t0, t) - weightIn(runArrivals, t0, t)
  console.log(
    `  admitted but not yet arrived (Redis stamp ≤ t, arrival > t) at the worst window's start: ${inFlight(w.end - WINDOW_MS)}, at its end: ${inFlight(w.end)}; most at any admission: ${Math.max(0, ...runAdmissions.map((a) => inFlight(a.at)))}`,
  )
  const lags = flow.map((f) => f.lag).sort((x, y) => x - y)
  const q = (x: number): string => quantile(lags, x).toFixed(0)
  const atStart = flow
    .filter((f) => f.at > w.end - WINDOW_MS && f.at <= w.end - WINDOW_MS + 1_000)
    .map((f) => f.lag)
  console.log(
    `  admission → arrival, the flow matched first in first out by weight until the kill (ms): p50 ${q(0.5)}, p90 ${q(0.9)}, p99 ${q(0.99)}, max ${q(1)}; in the first second of the mock's worst window: max ${atStart.length > 0 ? Math.max(...atStart).toFixed(0) : 'n/a'}`,
  )
  console.log(
    `kill -9 of acct-a's holder (epoch ${oldEpoch}): the standby held the lease after ${ms(successor?.held)} (epoch ${successor?.epoch}), ran after ${ms(ranAt)}, first order on acct-a after ${ms(firstNew?.at)}`,
  )
  const between = arrivals.filter((a) => a.at > (successor?.held ?? 0) && a.at <= (firstNew?.at ?? 0))
  console.log(
    `  weight that arrived between the lease and that first order (all processes): ${between.reduce((n, a) => n + a.weight, 0)} in ${between.length} requests; in the window before the lease: ${maxWindowWeight(arrivals, WINDOW_MS, (successor?.held ?? 0) - WINDOW_MS, successor?.held ?? 0)}`,
  )
  console.log(
    `orders of the old epoch placed after the new epoch's first: ${lateOld.length}; duplicate coids: ${coids.length - new Set(coids).size}`,
  )
} finally {
  clearInterval(loadTimer)
  rig.close()
  if (finished === undefined) await mock.finish().catch(() => undefined)
  rmSync(secretsDir, { recursive: true, force: true })
  await redis.stop()
}

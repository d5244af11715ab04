/**
 * Fleet run (standalone, not in `npm test`): `node --import tsx bench/fleetRun.ts [--seconds 30]
 * [--window 10] [--budget 120] [--logs DIR]`. Real `perpbot run --live --fleet` processes (three
 * bots, two accounts, ACCOUNT=auto: one warm standby) against one loopback mock that counts the
 * request weight of every process on its single IP, with a real redis-server. The budget window is
 * compressed so a short run spans several windows. Once both holders run, the third stands by, and
 * one window has passed since (the start-ups' weight has left it), the holder of acct-a is killed
 * with SIGKILL.
 * Prints: the most weight that ARRIVED at the mock in any window (against the fleet budget), the
 * hand-over (kill → the standby holds the lease → runs → its first order on acct-a), and whether any
 * order of the dead holder's epoch was placed after the successor's first.
 * `--logs DIR` keeps every bot's stdout as DIR/<bot>.log (the hand-over's timeline).
 */
import { appendFileSync, mkdirSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { type FleetBot, fleetRig, maxWindowWeight, startCountingMock } from '../test/fleet/fleetBots.ts'
import { startRedis } from '../test/helpers/redis.ts'

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? Number(process.argv[i + 1]) : dflt
}
const SECONDS = arg('seconds', 30)
const WINDOW_MS = arg('window', 10) * 1000
const BUDGET = arg('budget', 120)
const TTL_MS = 3_000
const LOGS = ((i) => (i > 0 ? process.argv[i + 1] : undefined))(process.argv.indexOf('--logs'))
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))
const ACCOUNTS = ['acct-a', 'acct-b']

interface Watched {
  bot: FleetBot
  holding: { account: string; epoch: number; at: number }[]
  running: number[]
  /** When it logged that it stands by (its warm-up done). */
  standing: number[]
}

const redis = await startRedis()
const mock = await startCountingMock()
const rig = fleetRig({
  mock,
  redisUrl: redis.url,
  env: {
    FLEET_ACCOUNTS: ACCOUNTS.join(','),
    ACCOUNT: 'auto',
    FLEET_EGRESS_ID: 'bench',
    FLEET_BUDGET: String(BUDGET),
    FLEET_WINDOW_MS: String(WINDOW_MS),
    FLEET_LEASE_TTL_MS: String(TTL_MS),
  },
})
const load0 = loadavg()[0] ?? 0
try {
  await mock.accounts(ACCOUNTS, rig.secretsDir)
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

  const ranAt = successor?.w.running.find((t) => t > killedAt)
  // The first order the successor placed on acct-a (the mock's own order events, keyed by owner).
  const acctA = mock.orders.filter((o) => o.account === 'acct-a')
  const firstNew = acctA.find((o) => o.epoch === successor?.epoch && o.at > killedAt)
  const created = new Set<number>()
  const lateOld = acctA.filter((o) => {
    const isNew = !created.has(o.oid)
    created.add(o.oid)
    return isNew && o.epoch === oldEpoch && firstNew !== undefined && o.at >= firstNew.at
  })
  const coids = mock.arrivals.flatMap((a) => a.coids)
  const worst = maxWindowWeight(mock.arrivals, WINDOW_MS)
  const steady = maxWindowWeight(mock.arrivals, WINDOW_MS, t0 + started + WINDOW_MS, killedAt)
  const ms = (t: number | undefined): string => (t === undefined ? 'never' : `${t - killedAt} ms`)
  console.log(
    `# fleet run: 3 bots (ACCOUNT=auto) on 2 accounts, one mock, budget ${BUDGET} per ${WINDOW_MS / 1000} s window, lease TTL ${TTL_MS / 1000} s; load average ${load0.toFixed(1)} at the start, ${(loadavg()[0] ?? 0).toFixed(1)} at the end`,
  )
  console.log(`start-up until two bots ran and the third stood by: ${(started / 1000).toFixed(1)} s`)
  console.log(
    `requests at the mock: ${mock.arrivals.length}, weight ${mock.arrivals.reduce((s, a) => s + a.weight, 0)}`,
  )
  console.log(
    `most weight arrived in any ${WINDOW_MS / 1000} s window, start-ups included: ${worst} of ${BUDGET}`,
  )
  console.log(`  from one window after the start-ups to the kill: ${steady} of ${BUDGET}`)
  console.log(
    `kill -9 of acct-a's holder (epoch ${oldEpoch}): the standby held the lease after ${ms(successor?.held)} (epoch ${successor?.epoch}), ran after ${ms(ranAt)}, first order on acct-a after ${ms(firstNew?.at)}`,
  )
  const between = mock.arrivals.filter((a) => a.at > (successor?.held ?? 0) && a.at <= (firstNew?.at ?? 0))
  console.log(
    `  weight that arrived between the lease and that first order (all processes): ${between.reduce((n, a) => n + a.weight, 0)} in ${between.length} requests; in the window before the lease: ${maxWindowWeight(mock.arrivals, WINDOW_MS, (successor?.held ?? 0) - WINDOW_MS, successor?.held ?? 0)}`,
  )
  console.log(
    `orders of the old epoch placed after the new epoch's first: ${lateOld.length}; duplicate coids: ${coids.length - new Set(coids).size}`,
  )
} finally {
  rig.close()
  await mock.close()
  await redis.stop()
}

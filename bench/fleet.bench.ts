/**
 * Fleet bench (standalone): `node --import tsx bench/fleet.bench.ts [--n 3000]`. Starts its own
 * redis-server on 127.0.0.1 (a random port, no persistence) and measures, in the same run:
 *   baseline   PING round trip (what any Redis call costs on loopback)
 *   admit      one shared-budget admission that is granted (EVALSHA of the sliding-log script)
 *   refuse     one admission refused with its wait, the log holding ~1,000 entries
 *   renew      one lease renewal (compare-and-set EVALSHA)
 *   4 clients  admissions from four connections at once (one process; the script is serialised
 *              by Redis, so this shows queueing at the server)
 */
import { performance } from 'node:perf_hooks'
import { AccountLease } from '../src/fleet/accountLease.ts'
import { ADMIT_LUA, budgetKeys } from '../src/fleet/budgetScripts.ts'
import { connectFleetRedis } from '../src/fleet/redisConnection.ts'
import { LuaScript } from '../src/fleet/redisScript.ts'
import { createSharedBudget } from '../src/fleet/sharedBudget.ts'
import { startRedis } from '../test/helpers/redis.ts'
import { distribution, exitWithHelpOnRequest, ms } from './stats.ts'

exitWithHelpOnRequest(import.meta.url)

const nArg = process.argv.indexOf('--n')
const N = nArg > 0 ? Number(process.argv[nArg + 1]) : 3_000

async function timed(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < 200; i++) await fn() // warm-up
  const out: number[] = []
  for (let i = 0; i < n; i++) {
    const t = performance.now()
    await fn()
    out.push(performance.now() - t)
  }
  return out
}

function row(label: string, samples: number[]): void {
  const d = distribution(samples)
  console.log(
    `| ${label.padEnd(34)} | ${String(d.n).padStart(6)} | ${ms(d.p50)} | ${ms(d.p99)} | ${ms(d.max)} |`,
  )
}

async function main(): Promise<void> {
  const server = await startRedis()
  const redis = connectFleetRedis(server.url)
  try {
    await new Promise((r) => setTimeout(r, 200))
    console.log(
      `# fleet bench: ${N} sequential calls each, loopback redis-server ${(await redis.info('server')).match(/redis_version:(\S+)/)?.[1]}, Node ${process.version}`,
    )
    console.log('| call | n | p50 ms | p99 ms | max ms |')
    console.log('|---|---:|---:|---:|---:|')
    row('baseline: PING', await timed(N, () => redis.ping()))

    const big = createSharedBudget({
      client: redis,
      egressId: 'bench-admit',
      budget: 10_000_000,
      windowMs: 60_000,
      graceMs: 1,
    })
    row('admit (granted), log growing', await timed(N, () => big.acquire(1, 'read')))

    // A full log of ~1,000 entries; each call is refused and computes its wait.
    const admit = new LuaScript(ADMIT_LUA)
    const k = budgetKeys('perpbot', 'bench-full')
    const keys = [k.log, k.sum, k.seq, k.blocked, k.gen]
    await admit.run(redis, keys, [1, 1_000, 60_000, 0])
    for (let i = 1; i < 1_000; i++) await admit.run(redis, keys, [1, 1_000, 60_000, 0])
    row(
      'admit (refused, 1,000 in the log)',
      await timed(N, () => admit.run(redis, keys, [1, 1_000, 60_000, 0])),
    )

    const lease = new AccountLease({
      client: redis,
      account: 'bench',
      holderId: 'bench',
      ttlMs: 600_000,
      renewEveryMs: 300_000,
    })
    await lease.tryAcquire()
    const status = lease.status()
    if (status.state !== 'held') throw new Error('lease not held')
    const renew = new LuaScript((await import('../src/fleet/leaseScripts.ts')).RENEW_LUA)
    const lk = (await import('../src/fleet/leaseScripts.ts')).leaseKeys('perpbot', 'bench')
    row(
      'lease renew (CAS)',
      await timed(N, () => renew.run(redis, [lk.lease, lk.epoch], [status.token, 600_000, status.epoch])),
    )
    lease.stop()

    const clients = [0, 1, 2, 3].map(() => connectFleetRedis(server.url))
    await new Promise((r) => setTimeout(r, 200))
    const budgets = clients.map((c) =>
      createSharedBudget({ client: c, egressId: 'bench-4', budget: 10_000_000, graceMs: 1 }),
    )
    const all = await Promise.all(budgets.map((b) => timed(Math.floor(N / 4), () => b.acquire(1, 'read'))))
    row('admit (granted), 4 clients at once', all.flat())
    for (const c of clients) c.disconnect()
  } finally {
    redis.disconnect()
    await server.stop()
  }
}
void main()

/**
 * Three real `perpbot run --live --fleet` processes (one account each) against one loopback mock that
 * counts the request weight of every process arriving on its single IP, with a real redis-server and
 * the budget's window compressed to 2 s. Redis is killed mid-run for 2.5 s (data and scripts lost):
 * nothing reaches the venue while it is down (quoting pauses), every process reloads the scripts and
 * sees the new generation, trading resumes on every account, and no 2 s window at the venue holds more
 * than it allows. A fourth process stands by, warm, answering /livez on the ops port of its config
 * file (not only one given by --ops-port), and takes no account through the restart. The fleet budget is 80 % of the venue's limit: on a window compressed 30× a process
 * admitted by Redis and starved of CPU for a few hundred ms before its send is a large share of the
 * window (docs/fleet.md, "Start-up overshoot"); production keeps 10 % of a 60 s window.
 */
import { createServer } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RedisServer, redisSkipReason, startRedis } from '../helpers/redis.ts'
import { type CountingMock, fleetRig, gaugeOf, maxWindowWeight, startCountingMock } from './fleetBots.ts'

const skip = redisSkipReason()
const WINDOW_MS = 2_000
const VENUE_LIMIT = 300
const BUDGET = 240
const ACCOUNTS = ['acct-1', 'acct-2', 'acct-3']
async function freePort(): Promise<number> {
  const srv = createServer()
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve))
  const addr = srv.address()
  await new Promise((resolve) => srv.close(resolve))
  return typeof addr === 'object' && addr !== null ? addr.port : 0
}
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

async function until(what: string, ok: () => boolean, ms: number, detail = (): string => ''): Promise<void> {
  const end = Date.now() + ms
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what} ${detail()}`)
    await sleep(50)
  }
}

describe.skipIf(skip !== undefined)(`three bot processes, one IP, one Redis ${skip ?? ''}`, () => {
  let redis: RedisServer
  let mock: CountingMock
  beforeAll(async () => {
    redis = await startRedis()
    mock = await startCountingMock()
  })
  afterAll(async () => {
    await mock?.close()
    await redis?.stop()
  })

  it('quote within the shared budget; Redis restarted: quoting pauses, scripts reload, trading resumes', {
    timeout: 90_000,
  }, async () => {
    const rig = fleetRig({
      mock,
      redisUrl: redis.url,
      env: {
        FLEET_ACCOUNTS: ACCOUNTS.join(','),
        FLEET_EGRESS_ID: 'test-ip',
        FLEET_BUDGET: String(BUDGET),
        FLEET_WINDOW_MS: String(WINDOW_MS),
      },
    })
    try {
      await mock.accounts(ACCOUNTS, rig.secretsDir)
      const bots = ACCOUNTS.map((a, i) => rig.start(`bot-${i + 1}`, { ACCOUNT: a }))
      // The fourth starts once the three hold their accounts, its start-up beside theirs.
      await Promise.all(bots.map((b) => b.waitFor(/fleet: holding/, 60_000)))
      const standbyPort = await freePort()
      const standby = rig.start('bot-4', { ACCOUNT: 'auto' }, { opsPort: standbyPort })
      await Promise.all(bots.map((b) => b.waitFor(/perpbot live running/, 60_000)))
      const seen = (): string => {
        const n = new Map<string, number>()
        for (const o of mock.orders)
          n.set(`${o.account} ${o.status}`, (n.get(`${o.account} ${o.status}`) ?? 0) + 1)
        return `(order events: ${[...n].join(', ') || 'none'})`
      }
      // A fourth process stands by (every account held): warm, it answers /livez (and /readyz 503) on
      // the ops port of its config file, not only one given by --ops-port.
      await standby.waitFor(/fleet: standing by/, 60_000)
      // The probe binds just after the standby says so: asked until it answers (bounded).
      let live = 0
      for (let i = 0; i < 50 && live !== 200; i++) {
        live = await fetch(`http://127.0.0.1:${standbyPort}/livez`).then(
          (r) => r.status,
          () => 0,
        )
        if (live !== 200) await sleep(100)
      }
      expect(live).toBe(200)
      expect((await fetch(`http://127.0.0.1:${standbyPort}/readyz`)).status).toBe(503)
      await until('every account quoting', () => ACCOUNTS.every((a) => mock.tradedAfter(a, 0)), 20_000, seen)

      const downAt = Date.now()
      await redis.kill()
      await sleep(2_500)
      await redis.start()
      const upAt = Date.now()
      await until(
        'every account trading again after the restart',
        () => ACCOUNTS.every((a) => mock.tradedAfter(a, upAt)),
        20_000,
        seen,
      )
      const metrics = await Promise.all(
        bots.map(async (b) => {
          const url = b.opsUrl()
          if (url === undefined) throw new Error(`${b.name}: no ops URL`)
          return (await fetch(`${url}/metrics`)).text()
        }),
      )
      for (const b of [...bots, standby]) b.proc.kill('SIGTERM')
      const codes = await Promise.all([...bots, standby].map((b) => b.exited(20_000)))
      expect(codes.slice(0, 3)).toEqual([0, 0, 0])
      // Through the restart the standby left every account to its holder (each re-asserted its
      // lease at its next renewal; the standby defers an account lost with Redis's data).
      expect(standby.lines.filter((l) => l.includes('fleet: holding'))).toEqual([])
      // The standby never started a bot: every account stayed with its holder.
      expect(standby.lines.some((l) => l.includes('perpbot live running'))).toBe(false)

      // The venue never saw more than it allows in any window, start-ups and the restart included.
      const worst = maxWindowWeight(mock.arrivals, WINDOW_MS)
      expect(worst).toBeLessThanOrEqual(VENUE_LIMIT)
      // Quoting paused: nothing arrived while Redis was away (500 ms for what was admitted before).
      expect(mock.arrivals.filter((a) => a.at > downAt + 500 && a.at < upAt)).toEqual([])
      for (const m of metrics) {
        // Every process saw the new generation (each traded after the restart) and kept its lease.
        expect(gaugeOf(m, 'perpbot_fleet_generations')).toBeGreaterThanOrEqual(1)
        expect(gaugeOf(m, 'perpbot_fleet_lease_held')).toBe(1)
      }
      // Someone asked while Redis was down and was refused (a bot at rest on its streams may ask
      // nothing for a while, so the sum, not each).
      const errors = metrics.reduce((n, m) => n + (gaugeOf(m, 'perpbot_fleet_redis_errors') ?? 0), 0)
      expect(errors).toBeGreaterThan(0)
      // The new server had no scripts: at least one process sent one again (EVAL caches it for all).
      const reloads = metrics.reduce((n, m) => n + (gaugeOf(m, 'perpbot_fleet_script_reloads') ?? 0), 0)
      expect(reloads).toBeGreaterThanOrEqual(1)
    } finally {
      rig.close()
    }
  })
})

/**
 * One writer per account, with real OS processes and a real redis-server:
 * - SIGSTOP of the holder past its TTL: a standby takes over with a higher epoch and cancels the
 *   zombie's orders; on SIGCONT the zombie finds its own deadline past and sends nothing more. At
 *   the venue: no order of the old epoch arrives after the new epoch's first; no duplicate ids; no
 *   order of the old epoch left open.
 * - `ACCOUNT=auto` with N+1 processes on N accounts: kill -9 of a holder, the standby holds its
 *   account within the TTL plus one standby poll (measured).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RedisServer, redisSkipReason, startRedis } from '../helpers/redis.ts'
import { type FencingVenue, startFencingVenue } from './fencingVenue.ts'
import { startWorker, type Worker } from './processes.ts'

const skip = redisSkipReason()
const TTL = 2_000
const RENEW = 400
const MARGIN = 600
const POLL = 100
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

const held = (line: string): { account: string; epoch: number; at: number } => {
  const [, account = '', epoch, at] = line.split(' ')
  return { account, epoch: Number(epoch), at: Number(at) }
}

describe.skipIf(skip !== undefined)(`account lease across processes ${skip ?? ''}`, () => {
  let redis: RedisServer
  let venue: FencingVenue
  const workers: Worker[] = []
  const spawnFleet = (name: string, accounts: string[]): Worker => {
    const w = startWorker('fleetWorker.ts', {
      url: redis.url,
      accounts,
      holderId: name,
      ttlMs: TTL,
      renewEveryMs: RENEW,
      marginMs: MARGIN,
      pollMs: POLL,
      venueUrl: venue.url,
      orderEveryMs: 20,
    })
    workers.push(w)
    return w
  }
  beforeAll(async () => {
    ;[redis, venue] = await Promise.all([startRedis(), startFencingVenue()])
  })
  afterAll(async () => {
    for (const w of workers) {
      w.kill('SIGCONT')
      w.kill('SIGKILL')
    }
    await Promise.all(workers.map((w) => w.exited(5_000)))
    await Promise.all([redis?.stop(), venue?.close()])
  })

  it('SIGSTOP past the TTL: the successor fences the zombie out; kill -9: the standby holds within the TTL', {
    timeout: 45_000,
  }, async () => {
    // N+1 processes on N accounts: two hold (one account each), one stands by.
    const accounts = ['acct-1', 'acct-2']
    const ws = ['p1', 'p2', 'p3'].map((n) => spawnFleet(n, accounts))
    await Promise.all(ws.map((w) => w.waitFor(/^(HELD|STANDBY)/, 20_000)))
    await sleep(3 * POLL)
    const heldBy = (account: string): Worker | undefined =>
      ws.find((w) => w.lines.some((l) => l.startsWith(`HELD ${account} `)))
    const zombie = heldBy('acct-1')
    const survivor = heldBy('acct-2')
    const standby = ws.find((w) => w !== zombie && w !== survivor)
    if (zombie === undefined || survivor === undefined || standby === undefined)
      throw new Error('no 2 holders + standby')
    expect(standby.lines).toContain('STANDBY')
    const first = held(zombie.lines.find((l) => l.startsWith('HELD acct-1 ')) ?? '')

    // SIGSTOP the holder of acct-1 past its TTL; the standby takes over; SIGCONT.
    const stoppedAt = Date.now()
    zombie.kill('SIGSTOP')
    const second = held(await standby.waitFor(/^HELD acct-1 /, 5_000))
    await sleep(300)
    zombie.kill('SIGCONT')
    const lost = await zombie.waitFor(/^LOST acct-1 /, 5_000)
    // The successor's first order at the venue (counted, not timed: at load 17 none had arrived 600 ms
    // after its HELD line).
    for (let i = 0; i < 200; i++) {
      if (venue.orders.some((o) => o.account === 'acct-1' && o.epoch === second.epoch)) break
      await sleep(50)
    }
    await sleep(300)

    expect(second.epoch).toBeGreaterThan(first.epoch)
    expect(lost.split(' ')[3]).toBe('expired')
    // The successor cannot hold before the zombie's last renewal has lapsed: the zombie still held
    // at the stop, so that renewal was sent after stop − (TTL − MARGIN) (however late its timer ran).
    const takeover = second.at - stoppedAt
    expect(takeover).toBeGreaterThanOrEqual(TTL - MARGIN)
    expect(takeover).toBeLessThanOrEqual(TTL + POLL + 700)
    const orders = venue.orders.filter((o) => o.account === 'acct-1')
    const firstNew = orders.findIndex((o) => o.epoch === second.epoch)
    expect(firstNew).toBeGreaterThan(0)
    expect(orders.slice(0, firstNew).some((o) => o.epoch === first.epoch)).toBe(true)
    // No order of the old epoch was accepted after the new epoch's first. At most one reached the
    // venue at all: the send the stop caught between the fence's check and the socket write (the
    // worker's fetch writes on a later tick), which the venue refuses by its epoch (seen once in CI).
    const late = orders.slice(firstNew).filter((o) => o.epoch !== second.epoch)
    expect(late.length).toBeLessThanOrEqual(1)
    expect(late.filter((o) => o.accepted)).toEqual([])
    expect(orders.filter((o) => !late.includes(o)).every((o) => o.accepted)).toBe(true)
    // No duplicate, no orphan: every open order is the successor's.
    expect(new Set(orders.map((o) => o.coid)).size).toBe(orders.length)
    const open = venue.open('acct-1')
    expect(open.length).toBeGreaterThan(0)
    for (const coid of open) expect(orders.find((o) => o.coid === coid)?.epoch).toBe(second.epoch)

    // The resumed zombie is now the standby. kill -9 the holder of acct-2: it takes over.
    await zombie.waitFor(/^STANDBY$/, 5_000)
    const killedAt = Date.now()
    survivor.kill('SIGKILL')
    const took = held(await zombie.waitFor(/^HELD acct-2 /, 5_000))
    const handover = took.at - killedAt
    expect(handover).toBeLessThanOrEqual(TTL + POLL + 700)
    // The successor of acct-1 kept it throughout.
    expect(standby.lines.some((l) => l.startsWith('LOST'))).toBe(false)
    console.info(
      `hand-over after SIGSTOP: ${takeover} ms; after kill -9: ${handover} ms (TTL ${TTL} ms, renew ${RENEW} ms, standby poll ${POLL} ms)`,
    )
  })
})

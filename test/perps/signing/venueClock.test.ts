/**
 * The venue clock is accepted only within a bound of the local clock: beyond it the offset is refused,
 * the clock is untrusted and the signer refuses to sign (a `ClockSkewError` the bot alerts on) until a
 * measurement within the bound arrives. `syncClock` is driven over a real loopback time endpoint.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { type Clock, OffsetClock } from '../../../src/clock.ts'
import { ClockSkewError, InputValidationError } from '../../../src/errors.ts'
import { NO_RETRY } from '../../../src/http/callJson.ts'
import { createPerpsClient } from '../../../src/perps/client/createPerpsClient.ts'
import { syncClock } from '../../../src/perps/client/syncClock.ts'
import { createCommandSigner } from '../../../src/perps/signing/commandSigner.ts'
import { buildCancelOrders } from '../../../src/perps/signing/ops.ts'
import { seededRandom } from '../../../src/random.ts'

const PROXY_PK = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d' // public dev key
const NOW = 1_767_000_000_000
const FIVE_MIN = 300_000

function fixedClock(t: number): Clock {
  return { now: () => t, setTimeout: () => undefined, clearTimeout: () => undefined }
}

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.()
})

describe('OffsetClock bound', () => {
  it('accepts offsets up to the bound either way and refuses beyond it, keeping the last good offset', () => {
    const clock = new OffsetClock(fixedClock(NOW), { maxOffsetMs: FIVE_MIN })
    clock.setOffset(FIVE_MIN)
    clock.setOffset(-FIVE_MIN)
    clock.setOffset(1_234)
    expect(clock.now()).toBe(NOW + 1_234)
    expect(() => clock.setOffset(FIVE_MIN + 1)).toThrow(ClockSkewError)
    expect(clock.offsetMs).toBe(1_234)
    expect(clock.now()).toBe(NOW + 1_234)
    expect(clock.refusedOffsetMs).toBe(FIVE_MIN + 1)
    expect(() => clock.assertTrusted()).toThrow(ClockSkewError)
    // A sane measurement restores trust.
    clock.setOffset(-40)
    expect(clock.refusedOffsetMs).toBeUndefined()
    expect(() => clock.assertTrusted()).not.toThrow()
  })

  it('refuses non-finite offsets and says how far off the venue is, in words an operator reads', () => {
    const clock = new OffsetClock(fixedClock(NOW), { maxOffsetMs: FIVE_MIN })
    expect(() => clock.setOffset(Number.NaN)).toThrow(ClockSkewError)
    // The probe's `time: 1`: 56 years in the past.
    const e = (() => {
      try {
        clock.setOffset(1 - NOW)
      } catch (err) {
        return err
      }
    })() as ClockSkewError
    expect(e).toBeInstanceOf(ClockSkewError)
    expect(e.offsetMs).toBe(1 - NOW)
    expect(e.maxOffsetMs).toBe(FIVE_MIN)
    expect(e.shortMessage).toMatch(/^venue clock differs from the local clock by -20451 d \(bound 5 min\)/)
    expect(e.shortMessage).toContain('signing refused')
  })

  it('is unbounded unless asked (the mock shifts its own clock with it) and rejects a negative bound', () => {
    const clock = new OffsetClock(fixedClock(NOW))
    clock.setOffset(86_400_000)
    expect(clock.now()).toBe(NOW + 86_400_000)
    expect(() => new OffsetClock(fixedClock(NOW), { maxOffsetMs: -1 })).toThrow(InputValidationError)
  })
})

describe('CommandSigner on an untrusted venue clock', () => {
  it('refuses to sign commands and createProxy while refused, and signs again after a sane sync', async () => {
    const clock = new OffsetClock(fixedClock(NOW), { maxOffsetMs: FIVE_MIN })
    const signer = createCommandSigner({ privateKey: PROXY_PK, clock, salts: seededRandom(1) })
    const cancel = buildCancelOrders({ oids: [7] })
    await expect(signer.signCommand(cancel)).resolves.toMatchObject({ ts: NOW })

    expect(() => clock.setOffset(1 - NOW)).toThrow(ClockSkewError)
    await expect(signer.signCommand(cancel)).rejects.toBeInstanceOf(ClockSkewError)
    expect(() => signer.stamp()).toThrow(ClockSkewError)
    await expect(
      signer.signCreateProxy({ proxy: signer.address, expiry: NOW + 86_400_000 }),
    ).rejects.toBeInstanceOf(ClockSkewError)

    clock.setOffset(250)
    await expect(signer.signCommand(cancel)).resolves.toMatchObject({ ts: NOW + 250 })
  })
})

describe('syncClock over loopback', () => {
  async function timeServer(answer: () => unknown): Promise<{ url: string; trades: number }> {
    const state = { url: '', trades: 0 }
    const server: Server = createServer((req, res) => {
      req.resume()
      if (req.url?.startsWith('/v1/trade')) state.trades++
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify(answer()))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
    state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve())
          server.closeAllConnections()
        }),
    )
    return state
  }

  it('a venue time of 1 is refused: the offset stays, nothing is signed or sent, and it says so', async () => {
    let venueTime = NOW + 1_500
    const srv = await timeServer(() => ({ time: venueTime }))
    const base = fixedClock(NOW)
    const venueClock = new OffsetClock(base, { maxOffsetMs: FIVE_MIN })
    const signer = createCommandSigner({ privateKey: PROXY_PK, clock: venueClock, salts: seededRandom(1) })
    const perps = createPerpsClient({
      baseUrl: srv.url,
      clock: venueClock,
      readRetry: NO_RETRY,
      signer,
    })
    cleanups.push(() => perps.close())

    expect(await syncClock(perps, base, venueClock)).toBe(1_500)
    expect(venueClock.now()).toBe(NOW + 1_500)

    venueTime = 1
    const e = await syncClock(perps, base, venueClock).catch((err: unknown) => err)
    expect(e).toBeInstanceOf(ClockSkewError)
    expect((e as ClockSkewError).offsetMs).toBe(1 - NOW)
    expect(venueClock.offsetMs).toBe(1_500)

    // Before the bound existed the bot went on signing commands that the venue rejected as expired.
    await expect(perps.cancelOrders([1])).rejects.toBeInstanceOf(ClockSkewError)
    expect(srv.trades).toBe(0)

    venueTime = NOW + 900
    expect(await syncClock(perps, base, venueClock)).toBe(900)
    await perps.cancelOrders([1]).catch(() => undefined) // the loopback answers no valid ack; it was sent
    expect(srv.trades).toBe(1)
  })

  it('an offset within the bound behaves as before (a 4-minute skew is applied)', async () => {
    const srv = await timeServer(() => ({ time: NOW + 240_000 }))
    const base = fixedClock(NOW)
    const venueClock = new OffsetClock(base, { maxOffsetMs: FIVE_MIN })
    const perps = createPerpsClient({ baseUrl: srv.url, clock: venueClock, readRetry: NO_RETRY })
    cleanups.push(() => perps.close())
    expect(await syncClock(perps, base, venueClock, { samples: 2 })).toBe(240_000)
    expect(() => venueClock.assertTrusted()).not.toThrow()
  })
})

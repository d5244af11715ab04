import { describe, expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import { InputValidationError, RateLimitError, RequestRejectedError } from '../../src/errors.ts'
import { SharedBudgetTimeoutError } from '../../src/fleet/errors.ts'
import { isTransient, retryTransient } from '../../src/http/retryTransient.ts'

function clock() {
  const sim = new SimulatedClock()
  return { sim, clock: sim }
}

/** Lets pending promise callbacks run. */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await Promise.resolve()
}

describe('retryTransient', () => {
  it('waits out a 429 (its Retry-After, capped) and a 5xx, then returns the answer', async () => {
    const { sim, clock: c } = clock()
    const warned: string[] = []
    const errors = [
      new RateLimitError('/v1/info/instruments', 'ip_rate_limited', 3_000),
      new RequestRejectedError('/v1/info/instruments', 503, 'service_unavailable'),
    ]
    let calls = 0
    const done = retryTransient(
      'reading the instruments',
      async () => {
        calls += 1
        const e = errors.shift()
        if (e) throw e
        return 'ok'
      },
      { clock: c, logger: { warn: (_f, m) => void warned.push(m) } },
    )
    await settle()
    expect(calls).toBe(1)
    sim.increment(2_999)
    await settle()
    expect(calls).toBe(1)
    sim.increment(1)
    await settle()
    expect(calls).toBe(2)
    sim.increment(1_000) // the second backoff: 500 × 2
    await settle()
    await expect(done).resolves.toBe('ok')
    expect(warned[0]).toMatch(/reading the instruments failed .*trying again in 3000 ms \(1\/5\)/)
  })

  it('fails at once on a refusal that would only come again, and after the last try otherwise', async () => {
    const { sim, clock: c } = clock()
    const quiet = { warn: () => undefined }
    const bad = new RequestRejectedError('/v1/info/instruments', 400, 'bad_request')
    await expect(retryTransient('x', () => Promise.reject(bad), { clock: c, logger: quiet })).rejects.toBe(
      bad,
    )
    expect(isTransient(new InputValidationError('nope'))).toBe(false)
    let calls = 0
    const down = new RequestRejectedError('/v1/info/time', 503, 'service_unavailable')
    const done = retryTransient(
      'x',
      () => {
        calls += 1
        return Promise.reject(down)
      },
      { clock: c, logger: quiet, attempts: 3 },
    )
    const result = expect(done).rejects.toBe(down)
    for (let i = 0; i < 10; i++) {
      sim.increment(1_000)
      await settle()
    }
    await result
    expect(calls).toBe(3)
  })

  it("tries again when the fleet's shared budget was busy past its wait (nothing was sent)", async () => {
    const { sim, clock: c } = clock()
    let calls = 0
    const done = retryTransient(
      'cancelling a predecessor',
      async () => {
        calls += 1
        if (calls === 1) throw new SharedBudgetTimeoutError(20, 3_931)
        return 3
      },
      { clock: c, logger: { warn: () => undefined } },
    )
    await settle()
    sim.increment(500)
    await settle()
    await expect(done).resolves.toBe(3)
    expect(calls).toBe(2)
  })
})

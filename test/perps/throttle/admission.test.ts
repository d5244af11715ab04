/**
 * The throttle's admission as a value (issue 37): the client asks `admit`, holds the weight while it
 * signs and sends, and settles it with the outcome, or releases it unsent.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { RateLimitError } from '../../../src/errors.ts'
import { sendAdmitted } from '../../../src/perps/throttle/requestGate.ts'
import { createWeightLimiter, type WeightLimiter } from '../../../src/perps/throttle/weightLimiter.ts'
import { ManualClock } from '../../bot/limiter/helpers.ts'

let limiters: WeightLimiter[] = []
afterEach(async () => {
  await Promise.all(limiters.map((l) => l.stop()))
  limiters = []
})

function setup(): { l: WeightLimiter; clock: ManualClock } {
  const clock = new ManualClock()
  // 10 request weight per minute, no reserve: a cancel batch of 99 weighs 5.
  const l = createWeightLimiter({ requestBudget: 10, headroom: 1, riskReserve: 0, backoffJitter: 0, clock })
  limiters.push(l)
  return { l, clock }
}

const cancels = {
  endpoint: 'cancelOrders' as const,
  kind: 'command' as const,
  input: { n: 99 },
  requestWeight: 5,
  actionWeight: 99,
  priority: 'risk' as const,
}

describe('an admission', () => {
  it('holds its weight until it is settled, and a released one hands it back unspent', async () => {
    const { l } = setup()
    const a = await l.admit(cancels)
    expect(l.state().request.used).toBe(5)
    expect(l.state().running).toBe(1)
    a.release()
    expect(l.state().request.used).toBe(0)
    expect(l.state().running).toBe(0)

    const b = await l.admit(cancels)
    b.sending()
    b.settle()
    // Sent: charged for the window, no longer running.
    expect(l.state().request.used).toBe(5)
    expect(l.state().running).toBe(0)
  })

  it('a 429 given to settle pauses the budget it names and counts once, as a thrown send did', async () => {
    const { l, clock } = setup()
    const seen: string[] = []
    l.signals.rateLimited.subscribe((e) => seen.push(e.code))
    const a = await l.admit({ ...cancels, priority: 'read', kind: 'read', endpoint: 'getTime', input: {} })
    const e = new RateLimitError('/v1/info/time', 'ip_rate_limited', 2_000)
    a.settle(e)
    a.settle(e)
    expect(seen).toEqual(['ip_rate_limited'])
    expect(l.state().pausedUntil.request).toBe(clock.now() + 2_000)
  })

  it('sendAdmitted releases, unsent, an admission whose gate refuses the send at the last moment', async () => {
    const { l } = setup()
    const a = await l.admit(cancels)
    let sent = false
    const refusing = {
      ...a,
      sending: () => {
        throw new Error('lease lost')
      },
    }
    await expect(
      sendAdmitted(refusing, async () => {
        sent = true
      }),
    ).rejects.toThrow('lease lost')
    expect(sent).toBe(false)
    expect(l.state().request.used).toBe(0)
  })
})

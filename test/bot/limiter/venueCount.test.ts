/**
 * The venue's `Poly-RateLimit-*` count corrects the limiter: weight spent by someone else on the same
 * IP (here a second client on loopback, outside our limiter) shows in the mock's headers, and the
 * limiter counts it as used until the venue's reset.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createWeightLimiter, type WeightLimiter } from '../../../src/bot/limiter/weightLimiter.ts'
import { botResponseObserver } from '../../../src/bot/startup/botPerpsClient.ts'
import { type RunningMock, startMockServer } from '../../../src/mock/server.ts'
import { VirtualClock } from '../../../src/mock/virtualClock.ts'
import { createPerpsClient } from '../../../src/perps/client/createPerpsClient.ts'
import { PERPS_WEIGHTS } from '../../../src/perps/weights.ts'
import { seededRandom } from '../../../src/random.ts'

const BUDGET = 400
const OTHERS = 12

let mock: RunningMock | undefined
let limiter: WeightLimiter | undefined
afterEach(async () => {
  await limiter?.stop()
  await mock?.close()
})

async function run(observe: boolean) {
  // A stepped clock shared by the venue and our limiter: no token refills while the requests run, so
  // the counts are exact however slow the machine is (a real clock refilled a few under load).
  const clock = new VirtualClock({ mode: 'stepped' })
  mock = await startMockServer({
    port: 0,
    seed: 5,
    clock,
    rateLimits: { requestWeightPerMinute: BUDGET, headers: true },
  })
  limiter = createWeightLimiter({ clock, requestBudget: BUDGET, headroom: 1 })
  const lim = limiter
  const ours = createPerpsClient({
    baseUrl: mock.url,
    clock,
    random: seededRandom(1),
    gate: lim,
    observer: observe ? botResponseObserver({ limiter: lim }) : undefined,
  })
  const other = createPerpsClient({ baseUrl: mock.url, clock, random: seededRandom(2) })
  try {
    for (let i = 0; i < OTHERS; i++) await other.getInstruments()
    await ours.getInstruments()
    return lim.state()
  } finally {
    await Promise.all([ours.close(), other.close()])
  }
}

describe("the venue's rate-limit headers correct the limiter's window", () => {
  const w = PERPS_WEIGHTS.getInstruments.request({})

  it('weight the venue counts and we did not is charged as used', async () => {
    const s = await run(true)
    // The venue counts OTHERS + 1 requests; we sent one, and are charged the others'.
    expect(s.venueCharged).toBe(OTHERS * w)
    expect(s.request.used).toBe((OTHERS + 1) * w)
  })

  it('without the observer the limiter counts only its own request', async () => {
    const s = await run(false)
    expect(s.venueCharged).toBe(0)
    expect(s.request.used).toBe(w)
  })
})

/**
 * The venue's `Poly-RateLimit-*` headers with the official meaning (issue 35, point 4): the state of
 * the signer's order bucket, on a signed command's answer. Orders placed by someone else with the same
 * signer (a second client on loopback, outside our limiter) show in the mock's headers, and our
 * limiter counts them as used in its action budget (the signer's), never in the per-IP request weight,
 * until the venue's reset (a Unix time).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { botResponseObserver } from '../../../src/bot/startup/botPerpsClient.ts'
import { type RunningMock, startMockServer } from '../../../src/mock/server.ts'
import { VirtualClock } from '../../../src/mock/virtualClock.ts'
import { createPerpsClient } from '../../../src/perps/client/createPerpsClient.ts'
import { CommandSigner } from '../../../src/perps/signing/commandSigner.ts'
import { SaltSource } from '../../../src/perps/signing/salt.ts'
import { createWeightLimiter, type WeightLimiter } from '../../../src/perps/throttle/weightLimiter.ts'
import { PERPS_WEIGHTS } from '../../../src/perps/weights.ts'
import { seededRandom } from '../../../src/random.ts'
import { OWNER, PROXY, PROXY_PK, SECRET } from '../../perps/stream/streamHarness.ts'

const ACTIONS = 400
const OTHERS = 12

let mock: RunningMock | undefined
let limiter: WeightLimiter | undefined
afterEach(async () => {
  await limiter?.stop()
  await mock?.close()
})

async function run(observe: boolean) {
  // A stepped clock shared by the venue and our limiter: no token refills while the requests run.
  const clock = new VirtualClock({ mode: 'stepped' })
  const t0 = clock.now()
  mock = await startMockServer({
    port: 0,
    seed: 5,
    clock,
    rateLimits: { headers: true },
    exchange: {
      historyMinutes: 1,
      actionBudgetPerMinute: ACTIONS,
      accounts: [{ owner: OWNER, proxies: [{ proxy: PROXY, secret: SECRET, expiry: t0 + 86_400_000 }] }],
    },
  })
  limiter = createWeightLimiter({ clock, actionBudget: ACTIONS, headroom: 1 })
  const lim = limiter
  const client = (seed: number, mine: boolean) =>
    createPerpsClient({
      baseUrl: mock?.url ?? '',
      clock,
      random: seededRandom(seed),
      credentials: { proxy: PROXY, secret: SECRET },
      signer: new CommandSigner({ privateKey: PROXY_PK, clock, salts: new SaltSource(seededRandom(seed)) }),
      ...(mine ? { gate: lim } : {}),
      ...(mine && observe ? { observer: botResponseObserver({ limiter: lim }) } : {}),
    })
  const ours = client(1, true)
  const other = client(2, false)
  const order = { iid: 1, buy: true, p: '1000', qty: '0.01', tif: 'gtc' as const, po: true }
  try {
    for (let i = 0; i < OTHERS; i++) await other.createOrders([order])
    // A read carries no signer state: nothing is charged for it.
    await ours.getInstruments()
    await ours.createOrders([order])
    return { state: lim.state(), now: clock.now() }
  } finally {
    await Promise.all([ours.close(), other.close()])
  }
}

describe("the venue's per-signer rate-limit headers correct the limiter's action window", () => {
  it("the signer's orders the venue counts and we did not are charged to the action budget, not the request weight", async () => {
    const { state } = await run(true)
    // The venue counts OTHERS + 1 orders of the signer; we placed one, and are charged the others'.
    expect(state.venueCharged).toBe(OTHERS)
    expect(state.action.used).toBe(OTHERS + 1)
    // The request weight holds only our own two requests (the per-IP budget is not the signer's).
    expect(state.request.used).toBe(
      PERPS_WEIGHTS.getInstruments.request({}) + PERPS_WEIGHTS.createOrders.request({ n: 1 }),
    )
  })

  it('without the observer the limiter counts only its own order', async () => {
    const { state } = await run(false)
    expect(state.venueCharged).toBe(0)
    expect(state.action.used).toBe(1)
  })
})

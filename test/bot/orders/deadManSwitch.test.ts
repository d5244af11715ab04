import { describe, expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import { startDeadManSwitch } from '../../../src/bot/orders/deadManSwitch.ts'
import { RequestRejectedError } from '../../../src/errors.ts'
import { createLogger } from '../../../src/logging/logger.ts'

const settle = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve()
}

function dms(refuse: number) {
  const clock = new SimulatedClock()
  let calls = 0
  const d = startDeadManSwitch({
    perps: {
      async setAutoCancel({ time }) {
        calls += 1
        if (calls <= refuse) throw new RequestRejectedError('/v1/trade/auto-cancel', 500, 'internal_error')
        return { status: 'ok', deadline: time } as never
      },
    },
    clock,
    venueClock: clock,
    deadlineMs: 10_000,
    refreshMs: 3_000,
    logger: createLogger({ level: 'silent', pretty: 'never' }),
    alerts: { send: () => undefined },
  })
  return { clock, d, calls: () => calls }
}

describe('dead-man switch: the start waits for it', () => {
  it('resolves true at the first accepted deadline, after refusals', async () => {
    const { clock, d, calls } = dms(2)
    let armed: boolean | undefined
    void d.whenArmed(10_000).then((a) => {
      armed = a
    })
    await settle()
    expect(armed).toBeUndefined()
    for (let i = 0; i < 8 && armed === undefined; i++) {
      clock.increment(1_000)
      await settle()
    }
    expect(armed).toBe(true)
    expect(calls()).toBe(3)
    await expect(d.whenArmed(1)).resolves.toBe(true)
    await d.stop(false)
  })

  it('resolves false after the bound when the venue keeps refusing', async () => {
    const { clock, d } = dms(1_000)
    let armed: boolean | undefined
    void d.whenArmed(5_000).then((a) => {
      armed = a
    })
    clock.increment(4_999)
    await settle()
    expect(armed).toBeUndefined()
    clock.increment(1)
    await settle()
    expect(armed).toBe(false)
    await d.stop(false)
  })
})

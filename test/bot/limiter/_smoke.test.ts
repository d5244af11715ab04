import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import { createWeightLimiter } from '../../../src/bot/limiter/weightLimiter.ts'

beforeEach(() => {
  vi.useFakeTimers({ now: 0 })
})
afterEach(() => {
  vi.useRealTimers()
})

it('smoke', async () => {
  const lim = createWeightLimiter({})
  const log: number[] = []
  const ps = []
  for (let i = 0; i < 200; i++)
    ps.push(
      lim.schedule({ endpoint: 'getPortfolio', priority: 'read' }, async () => {
        log.push(Date.now())
      }),
    )
  await vi.advanceTimersByTimeAsync(0)
  console.log(log.length, lim.state())
  await vi.advanceTimersByTimeAsync(10)
  console.log(log.length)
  await vi.advanceTimersByTimeAsync(60_000)
  console.log(log.length, log.slice(-3))
  await vi.advanceTimersByTimeAsync(60_000)
  await Promise.all(ps)
  console.log(log.length, log.slice(-3))
  await lim.stop()
})

/**
 * The paper book's delivery queue empties itself: items in the order they came, one per check phase
 * (the work an item starts runs before the next item), and on after an item that threw.
 */
import { describe, expect, it } from 'vitest'
import { createSelfDrainingDeliveries } from '../../src/paper/paperDeliveries.ts'

const immediate = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

describe('self-draining deliveries', () => {
  it('hands items over in order, one per check phase, with nobody driving it', async () => {
    const q = createSelfDrainingDeliveries()
    const seen: string[] = []
    q.push(() => {
      seen.push('a')
      // Work the first item starts (a microtask) runs before the second item.
      void Promise.resolve().then(() => seen.push('a+'))
    })
    q.push(() => seen.push('b'))
    expect(seen).toEqual([])
    expect(q.size).toBe(2)
    await immediate()
    expect(seen).toEqual(['a', 'a+'])
    await immediate()
    expect(seen).toEqual(['a', 'a+', 'b'])
    expect(q.size).toBe(0)
  })

  it('goes on after an item that threw', async () => {
    const q = createSelfDrainingDeliveries()
    const seen: number[] = []
    const errors: unknown[] = []
    const onError = (e: unknown): void => void errors.push(e)
    process.on('uncaughtException', onError)
    try {
      q.push(() => {
        throw new Error('listener threw')
      })
      q.push(() => seen.push(2))
      await immediate()
      await immediate()
      await immediate()
    } finally {
      process.off('uncaughtException', onError)
    }
    expect(seen).toEqual([2])
    expect(errors).toHaveLength(1)
  })
})

/**
 * The state path `/status`, the metrics, the timeline and the journal show for a live actor
 * (`instrumentState`): the plan in flight is context, and the path still reads `repricing` while
 * it is with the venue (issue 37 point 2, session 9).
 */
import { describe, expect, it } from 'vitest'
import { instrumentState } from '../../../src/bot/observe/statusView.ts'
import { harness, oneBid } from './helpers.ts'

describe("an actor's state path", () => {
  it('reads syncing, then active.normal.repricing while a plan is in flight, then active.normal.quoting', async () => {
    const h = harness(oneBid)
    expect(instrumentState(h.actor.getSnapshot())).toBe('syncing')
    h.feedAll()
    expect(instrumentState(h.actor.getSnapshot())).toBe('active.normal.repricing')
    await h.resolveSubmit()
    expect(instrumentState(h.actor.getSnapshot())).toBe('active.normal.quoting')
    h.clock.increment(16_000)
    expect(instrumentState(h.actor.getSnapshot())).toMatch(/^halted\./)
  })
})

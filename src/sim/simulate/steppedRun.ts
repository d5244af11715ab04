/**
 * Drives a stepped virtual clock as fast as the machine allows: wait until the process is idle, then
 * jump to the next due timer (firing it), and again, until the end time.
 *
 * "Idle" here: the bot talks to the mock through the in-process transport, so no work waits on a
 * socket; everything in flight is a promise, a `setImmediate` (the bot yields with it between chunks),
 * a short wall-clock timer (Bottleneck, behind the weight limiter's queue, steps with `setTimeout(0)`)
 * or a timer on the virtual clock. Inside an immediate callback the microtask queue is empty, so when
 * no other immediate and no wall-clock timer is pending either, nothing can run until the clock moves.
 * (`getActiveResourcesInfo` lists only what keeps the loop alive: unref'd timers do not count.)
 * Some waits show in none of these: a dynamic `import()` (viem's signature recovery in the mock does
 * one per call; under tsx it is a round trip to the loader thread) resolves from another thread. So
 * the caller also says whether work is in flight that no virtual timer holds (`busy`: requests inside
 * the mock's exchange or catalogue), and hands over one waiting answer at each quiet point (`deliver`,
 * see inProcessTransport.ts).
 */
import { InputValidationError } from '../../errors.ts'
import type { VirtualClock } from '../../mock/virtualClock.ts'

/** Turns of the event loop one settle may take before it gives up (a busy loop that never idles). */
export const MAX_SETTLE_TURNS = 1_000_000

type Turn = 'idle' | 'busy' | 'timeout'

/** What is still pending, seen from inside an immediate callback (the microtask queue is empty there). */
function turn(busy: () => boolean): Promise<Turn> {
  return new Promise((resolve) => {
    setImmediate(() => {
      const pending = process.getActiveResourcesInfo()
      if (pending.includes('Timeout')) resolve('timeout')
      else resolve(pending.includes('Immediate') || busy() ? 'busy' : 'idle')
    })
  })
}

/** Waits until the event loop has nothing left to run but timers on the virtual clock. */
export async function settle(hooks: SettleHooks = {}): Promise<void> {
  const busy = hooks.busy ?? (() => false)
  for (let i = 0; i < MAX_SETTLE_TURNS; i++) {
    const t = await turn(busy)
    if (t === 'idle') {
      if (hooks.deliver?.() === true) continue
      return
    }
    // A wall-clock timer: let it fire (ours, set later, fires after it) instead of spinning.
    if (t === 'timeout') await new Promise<void>((resolve) => setTimeout(resolve, 0))
  }
  throw new InputValidationError(`the process did not idle within ${MAX_SETTLE_TURNS} event-loop turns`)
}

export interface SettleHooks {
  /** Work in flight that no virtual timer holds. */
  busy?: (() => boolean) | undefined
  /** Hands over one waiting answer; false when none waits. */
  deliver?: (() => boolean) | undefined
}

export interface SteppedRunOptions extends SettleHooks {
  clock: VirtualClock
  /** Virtual Unix ms to stop at. */
  endMs: number
  /** Called after every step that moved time (progress, sampling); may be async. */
  onStep?: ((now: number) => void | Promise<void>) | undefined
  /** Stops early when it aborts. */
  signal?: AbortSignal | undefined
}

/** Runs the clock to `endMs`; returns the number of steps (timer jumps) taken. */
export async function runStepped(o: SteppedRunOptions): Promise<number> {
  if (o.clock.mode !== 'stepped') throw new InputValidationError('runStepped needs a stepped clock')
  let steps = 0
  await settle(o)
  while (o.clock.now() < o.endMs && o.signal?.aborted !== true) {
    const next = o.clock.nextDue()
    const to = next === undefined || next > o.endMs ? o.endMs : Math.max(next, o.clock.now())
    o.clock.set(to)
    steps += 1
    await settle(o)
    await o.onStep?.(to)
  }
  return steps
}

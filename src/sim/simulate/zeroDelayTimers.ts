/**
 * While a simulation runs, `setTimeout(fn, 0)` (and 1, which Node treats alike) becomes a
 * `setImmediate`. Bottleneck, under the bot's weight limiter, steps every queued job through several
 * zero-delay timeouts; each waits for the loop's next timers phase, at least a wall millisecond, so a
 * stepped run spent most of its wall time asleep between them. An immediate runs as soon as the
 * current work is done, which is what a zero delay asks for; `clearTimeout` clears it too. Longer
 * delays are left alone. Returns the function that restores the originals.
 */

export function installZeroDelayTimers(): () => void {
  const realSet = globalThis.setTimeout
  const realClear = globalThis.clearTimeout
  const immediates = new WeakMap<object, NodeJS.Immediate>()
  const patchedSet = (
    fn: unknown,
    ms?: number,
    ...rest: unknown[]
  ): NodeJS.Immediate | ReturnType<typeof realSet> => {
    if (typeof fn === 'function' && !(Number(ms) > 1)) {
      const im = setImmediate(() => fn(...rest))
      immediates.set(im, im)
      return im
    }
    return Reflect.apply(realSet, globalThis, [fn, ms, ...rest])
  }
  const patchedClear = (t: unknown): void => {
    const im = typeof t === 'object' && t !== null ? immediates.get(t) : undefined
    if (im !== undefined) clearImmediate(im)
    else Reflect.apply(realClear, globalThis, [t])
  }
  Reflect.set(globalThis, 'setTimeout', patchedSet)
  Reflect.set(globalThis, 'clearTimeout', patchedClear)
  return () => {
    Reflect.set(globalThis, 'setTimeout', realSet)
    Reflect.set(globalThis, 'clearTimeout', realClear)
  }
}

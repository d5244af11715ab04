/** What the conformance kit does to prove a strategy pure: frozen inputs, no clock, no randomness. */

/** Runs `fn` with `Date.now` and `Math.random` replaced by throwing stubs (synchronous calls only). */
export function guarded<T>(fn: () => T): T {
  const now = Date.now
  const random = Math.random
  Date.now = () => {
    throw new Error('strategy called Date.now(); use snapshot.now')
  }
  Math.random = () => {
    throw new Error('strategy called Math.random(); strategies must be deterministic')
  }
  try {
    return fn()
  } finally {
    Date.now = now
    Math.random = random
  }
}

/** Freezes the value and everything it holds. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}

/**
 * Seeded randomness. `Random` is the injected source for everything that draws numbers (salts,
 * jitter, the mock's market); `seededRandom` makes runs reproducible from one integer seed.
 */

export interface Random {
  /** Uniform in [0, 1). */
  next(): number
  /** Integer uniform in [min, max] (inclusive). */
  int(min: number, max: number): number
  /** Standard normal draw. */
  normal(): number
  pick<T>(items: readonly T[]): T
}

/** sfc32 seeded through splitmix32: fast, 128-bit state, good statistical quality for simulation. */
export function seededRandom(seed: number): Random {
  let s = seed >>> 0
  const split = (): number => {
    s = (s + 0x9e3779b9) >>> 0
    let z = s
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0
    return (z ^ (z >>> 16)) >>> 0
  }
  let a = split()
  let b = split()
  let c = split()
  let d = split()
  const next = (): number => {
    const t = (((a + b) >>> 0) + d) >>> 0
    d = (d + 1) >>> 0
    a = b ^ (b >>> 9)
    b = (c + (c << 3)) >>> 0
    c = ((c << 21) | (c >>> 11)) >>> 0
    c = (c + t) >>> 0
    return t / 4294967296
  }
  return fromUniform(next)
}

/** `Math.random` behind the same interface (production jitter and salts). */
export const systemRandom: Random = fromUniform(Math.random)

function fromUniform(next: () => number): Random {
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    normal: () => {
      // Box-Muller; 1 - u keeps the log argument in (0, 1].
      const u = 1 - next()
      const v = next()
      return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v)
    },
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new RangeError('pick from an empty list')
      return items[Math.floor(next() * items.length)] as T
    },
  }
}

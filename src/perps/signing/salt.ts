/**
 * Salts: a uint32 drawn from the injected `Random`, like the official client, but never reused by
 * the same signer while the venue could still see the earlier command. The venue rejects reused
 * (signer, salt) pairs inside the 5-minute signature validity window (protocol-notes a.3), so each
 * signer remembers the salts it used, keyed by the command's ts, and forgets them after the window.
 */
import type { Random } from '../../random.ts'

/** 5-minute validity window plus one minute for clock skew between us and the venue. */
export const DEFAULT_SALT_MEMORY_MS = 6 * 60_000
/** Hard bound on remembered salts per signer (far above any rate limit allows in the window). */
export const DEFAULT_MAX_SALTS_PER_SIGNER = 100_000

const UINT32_MAX = 0xffff_ffff
/** Fresh draws before falling back to probing upward, so a degenerate Random still terminates. */
const MAX_DRAWS = 8

export interface SaltSourceOptions {
  memoryMs?: number | undefined
  maxPerSigner?: number | undefined
}

export class SaltSource {
  readonly #random: Random
  readonly #memoryMs: number
  readonly #maxPerSigner: number
  /** signer (lower-cased) -> salt -> ts it was used with; Map order is insertion (≈ ts) order. */
  readonly #used = new Map<string, Map<number, number>>()

  constructor(random: Random, options: SaltSourceOptions = {}) {
    this.#random = random
    this.#memoryMs = options.memoryMs ?? DEFAULT_SALT_MEMORY_MS
    this.#maxPerSigner = options.maxPerSigner ?? DEFAULT_MAX_SALTS_PER_SIGNER
  }

  /** Draws a salt that `signer` has not used within the memory window, and records it at `ts`. */
  next(signer: string, ts: number): number {
    const used = this.#prune(signer.toLowerCase(), ts)
    let salt = this.#draw()
    for (let i = 1; i < MAX_DRAWS && used.has(salt); i++) salt = this.#draw()
    while (used.has(salt)) salt = salt === UINT32_MAX ? 0 : salt + 1
    used.set(salt, ts)
    return salt
  }

  /** How many salts are remembered for `signer` (for tests and metrics). */
  size(signer: string): number {
    return this.#used.get(signer.toLowerCase())?.size ?? 0
  }

  #draw(): number {
    return this.#random.int(0, UINT32_MAX)
  }

  #prune(key: string, now: number): Map<number, number> {
    let used = this.#used.get(key)
    if (used === undefined) {
      used = new Map()
      this.#used.set(key, used)
      return used
    }
    const cutoff = now - this.#memoryMs
    for (const [salt, ts] of used) {
      if (ts >= cutoff && used.size < this.#maxPerSigner) break
      used.delete(salt)
    }
    return used
  }
}

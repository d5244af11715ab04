/**
 * Salt replay protection. Decision (the venue does not publish its rule): a (signer, salt) pair is
 * single-use while the command that used it could still be accepted, i.e. until its `ts` is older
 * than the 5-minute signature window. Only commands accepted for processing consume their salt.
 * Memory is bounded in time (salts older than the window are pruned) and per signer: a signer that
 * holds `maxPerSigner` live salts is refused until the oldest leaves the window.
 */

/** Live salts kept per signer (about 333 accepted commands a second over the 5-minute window). */
export const MAX_SALTS_PER_SIGNER = 100_000

export class ReplayGuard {
  readonly #windowMs: number
  readonly #maxPerSigner: number
  /** signer (lower-cased) → salt → ts of the command that used it. */
  readonly #used = new Map<string, Map<number, number>>()
  #recordsSincePrune = 0

  constructor(windowMs: number, maxPerSigner = MAX_SALTS_PER_SIGNER) {
    this.#windowMs = windowMs
    this.#maxPerSigner = maxPerSigner
  }

  /** True when `signer` already used `salt` in a command whose ts is still inside the window. */
  seen(signer: string, salt: number, now: number): boolean {
    const ts = this.#used.get(signer.toLowerCase())?.get(salt)
    return ts !== undefined && ts >= now - this.#windowMs
  }

  /**
   * 0 when `signer` may use another salt; otherwise the ms until its oldest live salt leaves the
   * window (it holds `maxPerSigner` live ones).
   */
  fullForMs(signer: string, now: number): number {
    const salts = this.#used.get(signer.toLowerCase())
    if (salts === undefined || salts.size < this.#maxPerSigner) return 0
    const cutoff = now - this.#windowMs
    let oldest = Number.POSITIVE_INFINITY
    for (const [salt, ts] of salts) {
      if (ts < cutoff) salts.delete(salt)
      else oldest = Math.min(oldest, ts)
    }
    return salts.size < this.#maxPerSigner ? 0 : Math.max(1, oldest - cutoff)
  }

  /** Live salts held for `signer` (tests). */
  size(signer: string): number {
    return this.#used.get(signer.toLowerCase())?.size ?? 0
  }

  record(signer: string, salt: number, ts: number, now: number): void {
    const key = signer.toLowerCase()
    let salts = this.#used.get(key)
    if (salts === undefined) {
      salts = new Map()
      this.#used.set(key, salts)
    }
    salts.set(salt, ts)
    if (++this.#recordsSincePrune >= 1_000) this.#prune(now)
  }

  #prune(now: number): void {
    this.#recordsSincePrune = 0
    const cutoff = now - this.#windowMs
    for (const [signer, salts] of this.#used) {
      for (const [salt, ts] of salts) if (ts < cutoff) salts.delete(salt)
      if (salts.size === 0) this.#used.delete(signer)
    }
  }
}

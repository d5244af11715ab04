/**
 * Salt replay protection. Decision (the venue does not publish its rule): a (signer, salt) pair is
 * single-use while the command that used it could still be accepted, i.e. until its `ts` is older
 * than the 5-minute signature window. Only commands accepted for processing consume their salt.
 */
export class ReplayGuard {
  readonly #windowMs: number
  /** signer (lower-cased) → salt → ts of the command that used it. */
  readonly #used = new Map<string, Map<number, number>>()
  #recordsSincePrune = 0

  constructor(windowMs: number) {
    this.#windowMs = windowMs
  }

  /** True when `signer` already used `salt` in a command whose ts is still inside the window. */
  seen(signer: string, salt: number, now: number): boolean {
    const ts = this.#used.get(signer.toLowerCase())?.get(salt)
    return ts !== undefined && ts >= now - this.#windowMs
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

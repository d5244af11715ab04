/**
 * Who signed a digest: the address secp256k1 public-key recovery gives, synchronously, and fast for
 * the few keys that sign almost everything (a bot's proxy signs every command it sends).
 *
 * A full recovery lifts R from (r, v) and computes Q = r⁻¹(s·R − h·G): two multiplications by points
 * without precomputed tables, about 3–4 ms in pure JavaScript here. For a key Q seen before, the
 * same answer costs two table-driven multiplications: R' = s⁻¹h·G + s⁻¹r·Q. When R' has x = r and
 * the y parity v, R' is exactly the point recovery would lift, so recovery would return Q; otherwise
 * the full recovery runs. The answer never depends on the cache, only the time it takes.
 *
 * Why not viem's `recoverTypedDataAddress`: it does a dynamic `import()` of the curve per call, which
 * under tsx is a round trip to the loader thread, and it has no way to keep per-key tables.
 */
import type { ProjPointType } from '@noble/curves/abstract/weierstrass'
import { secp256k1 } from '@noble/curves/secp256k1'
import { getAddress, type Hex, keccak256, toHex } from 'viem'

const N = secp256k1.CURVE.n

interface KnownKey {
  readonly point: ProjPointType<bigint>
  readonly address: string
  /** Recoveries that gave this key; tables are built on the third. */
  uses: number
  fast: boolean
}

export interface SignerRecoveryOptions {
  /** Keys remembered, most recently used first. */
  maxKeys?: number | undefined
  /** Remembered keys tried before a full recovery (each miss costs about a third of one). */
  maxTries?: number | undefined
}

export class SignerRecovery {
  readonly #maxKeys: number
  readonly #maxTries: number
  /** Most recently used first. */
  #keys: KnownKey[] = []
  /** Answers from remembered keys, and full recoveries (for the tests and the benches). */
  readonly counts = { fast: 0, full: 0 }

  constructor(o: SignerRecoveryOptions = {}) {
    this.#maxKeys = o.maxKeys ?? 8
    this.#maxTries = o.maxTries ?? 2
  }

  /** The checksummed address that signed `digest` (32 bytes) with `sig` (r ‖ s ‖ v); undefined if none. */
  recover(digest: Hex, sig: Hex): string | undefined {
    const parts = splitSignature(sig)
    if (parts === undefined || !/^0x[0-9a-fA-F]{64}$/.test(digest)) return undefined
    const { r, s, v } = parts
    const h = BigInt(digest) % N
    const w = invert(s)
    const u1 = (h * w) % N
    const u2 = (r * w) % N
    let tries = 0
    if (u1 !== 0n)
      for (const k of this.#keys) {
        if (!k.fast) continue
        if (tries++ >= this.#maxTries) break
        const p = secp256k1.ProjectivePoint.BASE.multiply(u1).add(k.point.multiply(u2))
        if (p.equals(secp256k1.ProjectivePoint.ZERO)) continue
        const a = p.toAffine()
        if (a.x === r && Number(a.y & 1n) === v) {
          this.counts.fast += 1
          this.#touch(k)
          return k.address
        }
      }
    return this.#full(digest, r, s, v)
  }

  #full(digest: Hex, r: bigint, s: bigint, v: number): string | undefined {
    let point: ProjPointType<bigint>
    try {
      point = new secp256k1.Signature(r, s).addRecoveryBit(v).recoverPublicKey(digest.slice(2))
    } catch {
      return undefined
    }
    this.counts.full += 1
    const raw = point.toRawBytes(false)
    const address = getAddress(`0x${keccak256(toHex(raw.subarray(1))).slice(-40)}`)
    const known = this.#keys.find((k) => k.address === address)
    if (known === undefined) {
      this.#keys.unshift({ point, address, uses: 1, fast: false })
      if (this.#keys.length > this.#maxKeys) this.#keys.length = this.#maxKeys
      return address
    }
    known.uses += 1
    // A key that keeps signing earns its tables (about 20 ms to build; each use saves a few ms).
    if (!known.fast && known.uses >= 3) {
      secp256k1.utils.precompute(8, known.point)
      known.fast = true
    }
    this.#touch(known)
    return address
  }

  #touch(k: KnownKey): void {
    const i = this.#keys.indexOf(k)
    if (i > 0) {
      this.#keys.splice(i, 1)
      this.#keys.unshift(k)
    }
  }
}

/** r, s in [1, n) and the recovery bit from a 65-byte signature (v as 27/28 or 0/1). */
function splitSignature(sig: Hex): { r: bigint; s: bigint; v: number } | undefined {
  if (!/^0x[0-9a-fA-F]{130}$/.test(sig)) return undefined
  const r = BigInt(`0x${sig.slice(2, 66)}`)
  const s = BigInt(`0x${sig.slice(66, 130)}`)
  const byte = Number.parseInt(sig.slice(130), 16)
  const v = byte >= 27 ? byte - 27 : byte
  if (v !== 0 && v !== 1) return undefined
  if (r <= 0n || r >= N || s <= 0n || s >= N) return undefined
  return { r, s, v }
}

/** a⁻¹ mod n (n is prime; a in [1, n)). */
function invert(a: bigint): bigint {
  let [t, newT, r, newR] = [0n, 1n, N, a]
  while (newR !== 0n) {
    const q = r / newR
    ;[t, newT] = [newT, t - q * newT]
    ;[r, newR] = [newR, r - q * newR]
  }
  return t < 0n ? t + N : t
}

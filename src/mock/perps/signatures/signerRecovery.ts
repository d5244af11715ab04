/**
 * Who signed a digest: the address secp256k1 public-key recovery gives, synchronously, with
 * libsecp256k1 compiled to WebAssembly (`tiny-secp256k1`, the library the bot signs with): about
 * 0.4 ms a recovery here, against 3–4 ms for a full recovery in pure JavaScript.
 *
 * Why not viem's `recoverTypedDataAddress`: it does a dynamic `import()` of the curve per call, which
 * under tsx is a round trip to the loader thread. The answers equal viem's (tested, including a
 * flipped recovery bit and high-s signatures, which recovery accepts as viem does).
 */
import { recover as recoverPoint } from 'tiny-secp256k1'
import { bytesToHex, getAddress, type Hex, hexToBytes, keccak256 } from 'viem'
import { SECP256K1_N as N } from '../../../perps/signing/privateKey.ts'

export interface SignerRecoveryOptions {
  /** Addresses remembered per public key (the checksum costs a keccak), most recent first. */
  maxKeys?: number | undefined
}

export class SignerRecovery {
  readonly #maxKeys: number
  /** Uncompressed public key (hex) → checksummed address; insertion order is recency. */
  readonly #addresses = new Map<string, string>()

  constructor(o: SignerRecoveryOptions = {}) {
    this.#maxKeys = o.maxKeys ?? 8
  }

  /** The checksummed address that signed `digest` (32 bytes) with `sig` (r ‖ s ‖ v); undefined if none. */
  recover(digest: Hex, sig: Hex): string | undefined {
    const parts = splitSignature(sig)
    if (parts === undefined || !/^0x[0-9a-fA-F]{64}$/.test(digest)) return undefined
    let point: Uint8Array | null
    try {
      point = recoverPoint(hexToBytes(digest), parts.rs, parts.v, false)
    } catch {
      // r is not the x of a curve point, or the library refused the input otherwise.
      return undefined
    }
    if (point === null) return undefined
    const key = bytesToHex(point)
    let address = this.#addresses.get(key)
    if (address === undefined) {
      address = getAddress(`0x${keccak256(point.subarray(1)).slice(-40)}`)
      if (this.#addresses.size >= this.#maxKeys) {
        const oldest = this.#addresses.keys().next().value
        if (oldest !== undefined) this.#addresses.delete(oldest)
      }
    } else this.#addresses.delete(key)
    this.#addresses.set(key, address)
    return address
  }
}

/** r ‖ s (each in [1, n)) and the recovery bit from a 65-byte signature (v as 27/28 or 0/1). */
function splitSignature(sig: Hex): { rs: Uint8Array; v: 0 | 1 } | undefined {
  if (!/^0x[0-9a-fA-F]{130}$/.test(sig)) return undefined
  const r = BigInt(`0x${sig.slice(2, 66)}`)
  const s = BigInt(`0x${sig.slice(66, 130)}`)
  const byte = Number.parseInt(sig.slice(130), 16)
  const v = byte >= 27 ? byte - 27 : byte
  if (v !== 0 && v !== 1) return undefined
  if (r <= 0n || r >= N || s <= 0n || s >= N) return undefined
  return { rs: hexToBytes(`0x${sig.slice(2, 130)}`), v }
}

/**
 * Who signed a digest, as the mock's gate asks it. `expected` is the signer the caller thinks likely
 * (the account's only live proxy, the owner a body names); an implementation may answer with it at
 * once and verify later (`DeferredSignerCheck`, for the simulator), or ignore it and recover now.
 */
export interface SignerCheck {
  signer(digest: Hex, sig: Hex, expected?: string | undefined): string | undefined
}

/** Recovers every signature at once (the default; `expected` is not used). */
export function recoveringSignerCheck(recovery: SignerRecovery = new SignerRecovery()): SignerCheck {
  return { signer: (digest, sig) => recovery.recover(digest, sig) }
}

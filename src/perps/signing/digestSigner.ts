/**
 * Signs 32-byte digests with one secp256k1 key: libsecp256k1 compiled to WebAssembly
 * (`tiny-secp256k1`, bitcoinjs), with RFC 6979 nonces and low s, so the bytes equal viem's (noble's)
 * signature for the same key and digest (property-tested against viem). Why not viem: signing sits
 * on the tick-to-trade path, and libsecp256k1 signs in about a quarter of pure JavaScript's time.
 *
 * The key lives only in this closure, as bytes; libsecp256k1 gets it for the one call and zeroes its
 * copy after. Nothing here prints or returns it, and errors carry no cause (library errors about keys
 * may echo key material).
 */
import { signRecoverable } from 'tiny-secp256k1'
import type { Address, Hex } from 'viem'
import { privateKeyToAddress } from 'viem/accounts'
import { hexToBytes } from 'viem/utils'
import { SigningError } from '../../errors.ts'
import { parsePrivateKey } from './privateKey.ts'

export interface DigestSigner {
  readonly address: Address
  /** `r ‖ s ‖ v` (65 bytes, v = 27 | 28) over a 32-byte digest (hex or its bytes). @throws {@link SigningError} */
  sign(digest: Hex | Uint8Array): Hex
}

/** @throws {@link SigningError} for missing or invalid key material (the message never contains it). */
export function createDigestSigner(privateKey: unknown): DigestSigner {
  const hex = parsePrivateKey(privateKey)
  let address: Address
  try {
    address = privateKeyToAddress(hex)
  } catch {
    // Unreachable for keys that passed the range check; viem's message would print the key.
    throw new SigningError('invalid private key: rejected by the signing library')
  }
  const key = hexToBytes(hex)
  return {
    address,
    sign(digest) {
      let signed: { signature: Uint8Array; recoveryId: number }
      try {
        signed = signRecoverable(typeof digest === 'string' ? hexToBytes(digest) : digest, key)
      } catch (e) {
        throw new SigningError('could not sign perps command', {
          details: [e instanceof Error ? e.name : 'non-error thrown'],
        })
      }
      // 2 and 3 mean r ≥ n, which no 65-byte Ethereum signature can carry (probability ~2⁻¹²⁸).
      if (signed.recoveryId > 1) throw new SigningError('could not sign perps command: r overflowed n')
      // Node's hex writer spells what viem's `bytesToHex` does (lower case), natively.
      const sig = Buffer.from(
        signed.signature.buffer,
        signed.signature.byteOffset,
        signed.signature.byteLength,
      )
      return `0x${sig.toString('hex')}${signed.recoveryId === 0 ? '1b' : '1c'}`
    },
  }
}

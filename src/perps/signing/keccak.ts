/**
 * Keccak-256 for command digests: hash-wasm's WebAssembly build. A digest takes three hashes, and
 * every command is hashed twice in a simulation (the bot to sign, the mock to verify); viem's pure
 * JavaScript keccak took 26 µs for a 500-byte batch here, this one 1.5 µs (bench/keccak.bench.ts).
 * The hasher is created once, at load; after that it is synchronous, and a digest runs start to end
 * without yielding, so one instance serves every caller.
 */

import { createKeccak } from 'hash-wasm'
import type { Hex } from 'viem'

const hasher = await createKeccak(256)

/** Keccak-256 of `data`, as 32 new bytes. */
export function keccak256Bytes(data: Uint8Array): Uint8Array {
  hasher.init()
  hasher.update(data)
  return hasher.digest('binary')
}

/** Keccak-256 of `data`, as 0x-prefixed lower-case hex. */
export function keccak256Hex(data: Uint8Array): Hex {
  hasher.init()
  hasher.update(data)
  return `0x${hasher.digest('hex')}`
}

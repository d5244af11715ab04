// Recovers signers off the main thread for `DeferredSignerCheck` (deferredSignerCheck.ts): each
// message is a batch of [digest, sig, expected] (hex strings, expected lower-case); the answer names
// the ones whose signer is not the expected one. Plain JavaScript: a worker thread does not inherit
// the TypeScript loader under every runner (vitest's workers do not).
import { parentPort } from 'node:worker_threads'
import { recover } from 'tiny-secp256k1'
import { hexToBytes, keccak256 } from 'viem'

parentPort?.on('message', (batch) => {
  const bad = []
  for (const [digest, sig, expected] of batch.items) {
    const got = signerOf(digest, sig)
    if (got !== expected) bad.push({ digest, expected, got: got ?? 'no valid signer' })
  }
  parentPort?.postMessage({ id: batch.id, checked: batch.items.length, bad })
})

function signerOf(digest, sig) {
  try {
    const byte = Number.parseInt(sig.slice(130), 16)
    const v = byte >= 27 ? byte - 27 : byte
    if (v !== 0 && v !== 1) return undefined
    const point = recover(hexToBytes(digest), hexToBytes(`0x${sig.slice(2, 130)}`), v, false)
    if (point === null) return undefined
    return `0x${keccak256(point.subarray(1)).slice(-40)}`
  } catch {
    return undefined
  }
}

/**
 * Keccak-256 for command digests: hash-wasm (src/perps/signing/keccak.ts) against viem's pure
 * JavaScript keccak (the baseline), in the same run, for the three inputs a digest hashes (a
 * 500-byte msgpack batch, the 128-byte struct, the 66-byte envelope), and a whole `opDigest`.
 *
 *   node --import tsx bench/keccak.bench.ts [--samples 20000]
 */
import { performance } from 'node:perf_hooks'
import { keccak256 } from 'viem'
import { keccak256Bytes } from '../src/perps/signing/keccak.ts'
import { buildModifyOrders } from '../src/perps/signing/ops.ts'
import { opDigest } from '../src/perps/signing/typedData.ts'
import { numberFlag } from './stats.ts'

const N = numberFlag('samples', 20_000)

function perCall(f: () => unknown): number {
  for (let i = 0; i < Math.min(2_000, N); i++) f()
  const t = performance.now()
  for (let i = 0; i < N; i++) f()
  return ((performance.now() - t) * 1_000) / N
}

const bytes = (n: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (i * 31) & 0xff)
console.log(`keccak-256, µs per call (${N} calls each)`)
console.log('input        viem (noble)   hash-wasm   ratio')
for (const n of [500, 128, 66]) {
  const data = bytes(n)
  if (keccak256(data) !== `0x${Buffer.from(keccak256Bytes(data)).toString('hex')}`)
    throw new Error('the two keccaks disagree')
  const base = perCall(() => keccak256(data, 'bytes'))
  const ours = perCall(() => keccak256Bytes(data))
  console.log(
    `${`${n} B`.padEnd(12)} ${base.toFixed(2).padStart(12)} ${ours.toFixed(2).padStart(11)} ${(base / ours).toFixed(1).padStart(7)}×`,
  )
}
const op = buildModifyOrders({
  orders: Array.from({ length: 19 }, (_, i) => ({ oid: 1_000 + i, p: `6532${i % 10}.5`, qty: '0.012' })),
})
const domain = { name: 'Polymarket Perps', version: '1', chainId: 137 }
const stamp = { salt: 123_456_789, ts: 1_767_000_000_000 }
const digest = perCall(() => opDigest(domain, op.signedOp, stamp))
console.log(`opDigest of a 19-order modifyOrders batch: ${digest.toFixed(2)} µs`)

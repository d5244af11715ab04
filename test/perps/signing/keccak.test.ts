import fc from 'fast-check'
import { bytesToHex, keccak256 } from 'viem'
import { describe, expect, it } from 'vitest'
import { keccak256Bytes, keccak256Hex } from '../../../src/perps/signing/keccak.ts'

describe('keccak (hash-wasm)', () => {
  it("equals viem's keccak256 for inputs across the 136-byte block boundary, in bytes and hex", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 700 }), (data) => {
        const expected = keccak256(data)
        expect(keccak256Hex(data)).toBe(expected)
        expect(bytesToHex(keccak256Bytes(data))).toBe(expected)
      }),
      { numRuns: 300 },
    )
  })

  it('returns fresh bytes each call (a later hash does not overwrite an earlier answer)', () => {
    const a = keccak256Bytes(new Uint8Array([1]))
    const copy = Uint8Array.from(a)
    keccak256Bytes(new Uint8Array([2]))
    expect(a).toEqual(copy)
  })

  it('hashes the empty input as the known Keccak-256 of nothing', () => {
    expect(keccak256Hex(new Uint8Array())).toBe(
      '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470',
    )
  })
})

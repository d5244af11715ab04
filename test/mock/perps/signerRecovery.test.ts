import { type Hex, keccak256, recoverAddress, toHex } from 'viem'
import { privateKeyToAccount, sign } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { SignerRecovery } from '../../../src/mock/perps/signatures/signerRecovery.ts'
import { SECP256K1_N as N } from '../../../src/perps/signing/privateKey.ts'

const key = (i: number): Hex => `0x${(BigInt(i) * 0x9e3779b97f4a7c15n + 7n).toString(16).padStart(64, '0')}`
const digest = (i: number): Hex => keccak256(toHex(`digest ${i}`))
const hex64 = (x: bigint): string => x.toString(16).padStart(64, '0')

describe('SignerRecovery', () => {
  it('gives the address viem recovers, for a new key and a remembered one alike', async () => {
    const rec = new SignerRecovery()
    const signer = privateKeyToAccount(key(1))
    for (let i = 0; i < 12; i++) {
      const hash = digest(i)
      const sig = await sign({ hash, privateKey: key(1), to: 'hex' })
      expect(rec.recover(hash, sig)).toBe(signer.address)
      expect(rec.recover(hash, sig)).toBe(await recoverAddress({ hash, signature: sig }))
    }
  })

  it('answers a flipped recovery bit, a high s or another digest as viem does, not with the remembered key', async () => {
    const rec = new SignerRecovery()
    const hash = digest(1)
    for (let i = 0; i < 4; i++)
      rec.recover(digest(100 + i), await sign({ hash: digest(100 + i), privateKey: key(2), to: 'hex' }))
    const sig = await sign({ hash, privateKey: key(2), to: 'hex' })
    const v = sig.slice(130)
    const flipped: Hex = `${sig.slice(0, 130)}${v === '1b' ? '1c' : '1b'}` as Hex
    const other = await recoverAddress({ hash, signature: flipped })
    expect(other).not.toBe(privateKeyToAccount(key(2)).address)
    expect(rec.recover(hash, flipped)).toBe(other)
    // (r, n − s) with the other bit is the same signature in high-s form: the same signer, as viem says.
    const s = BigInt(`0x${sig.slice(66, 130)}`)
    const high: Hex = `${sig.slice(0, 66)}${hex64(N - s)}${v === '1b' ? '1c' : '1b'}` as Hex
    expect(rec.recover(hash, high)).toBe(await recoverAddress({ hash, signature: high }))
    expect(rec.recover(digest(2), sig)).toBe(await recoverAddress({ hash: digest(2), signature: sig }))
    expect(rec.recover(digest(2), sig)).not.toBe(privateKeyToAccount(key(2)).address)
  })

  it('keeps several signers apart and forgets the least recently used', async () => {
    const rec = new SignerRecovery({ maxKeys: 2 })
    const signers = [3, 4, 5].map((i) => privateKeyToAccount(key(i)))
    for (let round = 0; round < 4; round++)
      for (const [j, a] of signers.entries()) {
        const hash = digest(round * 10 + j)
        expect(rec.recover(hash, await sign({ hash, privateKey: key(j + 3), to: 'hex' }))).toBe(a.address)
      }
  })

  it('has no signer for a malformed signature or digest', () => {
    const rec = new SignerRecovery()
    const hash = digest(0)
    expect(rec.recover(hash, `0x${'00'.repeat(64)}1b`)).toBeUndefined()
    expect(rec.recover(hash, `0x${hex64(N)}${hex64(1n)}1b`)).toBeUndefined()
    expect(rec.recover(hash, `0x${hex64(1n)}${hex64(1n)}1d`)).toBeUndefined()
    expect(rec.recover(hash, '0x1234')).toBeUndefined()
    expect(rec.recover('0x12', `0x${hex64(1n)}${hex64(1n)}1b`)).toBeUndefined()
  })
})

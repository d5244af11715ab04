import { keccak256, toHex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterEach, describe, expect, it } from 'vitest'
import {
  DeferredSignerCheck,
  SignatureCheckError,
} from '../../../src/mock/perps/signatures/deferredSignerCheck.ts'

const alice = privateKeyToAccount(generatePrivateKey())
const mallory = privateKeyToAccount(generatePrivateKey())
const digest = (n: number) => keccak256(toHex(`command ${n}`))

describe('DeferredSignerCheck', () => {
  let check: DeferredSignerCheck
  afterEach(async () => {
    await check.close()
  })

  it('recovers a new signer at once, then answers with it and checks on the worker', async () => {
    check = new DeferredSignerCheck({ batchSize: 2 })
    // No likely signer, or one never recovered here: recovered at once.
    expect(check.signer(digest(0), await alice.sign({ hash: digest(0) }))).toBe(alice.address)
    expect(check.signer(digest(1), await alice.sign({ hash: digest(1) }), mallory.address)).toBe(
      alice.address,
    )
    expect(check.stats()).toEqual({ deferred: 0, checked: 0 })
    // Known now: answered with the spelling recovery gave, checked later.
    for (let i = 2; i < 7; i++)
      expect(
        check.signer(digest(i), await alice.sign({ hash: digest(i) }), alice.address.toLowerCase()),
      ).toBe(alice.address)
    await check.verified()
    expect(check.stats()).toEqual({ deferred: 5, checked: 5 })
    expect(check.failure()).toBeUndefined()
  })

  it('a signature by someone else, answered as the likely signer, fails the check with both names', async () => {
    check = new DeferredSignerCheck()
    check.signer(digest(0), await alice.sign({ hash: digest(0) }))
    const forged = await mallory.sign({ hash: digest(1) })
    // The mock acts on the likely signer...
    expect(check.signer(digest(1), forged, alice.address)).toBe(alice.address)
    // ...and the run learns it was wrong.
    const err = await check.verified().then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(err).toBeInstanceOf(SignatureCheckError)
    expect((err as Error).message).toContain(`accepted as signed by ${alice.address.toLowerCase()}`)
    expect((err as Error).message).toContain(`was signed by ${mallory.address.toLowerCase()}`)
    expect(check.failure()).toBe(err)
  })

  it('a malformed signature is never deferred: recovery refuses it at once', async () => {
    check = new DeferredSignerCheck()
    check.signer(digest(0), await alice.sign({ hash: digest(0) }))
    expect(check.signer(digest(1), '0x1234', alice.address)).toBeUndefined()
    const zeroR = `0x${'0'.repeat(128)}1b` as const
    // Well-formed hex but no valid signature: deferred, and the worker finds no signer.
    expect(check.signer(digest(2), zeroR, alice.address)).toBe(alice.address)
    await expect(check.verified()).rejects.toThrow(/was signed by no valid signer/)
  })
})

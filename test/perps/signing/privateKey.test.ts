/**
 * Keys are validated before any use (and so before anything is sent): 32 bytes of hex in 1..n-1.
 * No message, stack or rendering of the error carries the key in hex, decimal or base64.
 */
import { inspect } from 'node:util'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { SigningError } from '../../../src/errors.ts'
import {
  addressOfPrivateKey,
  parsePrivateKey,
  privateKeyProblem,
  SECP256K1_N,
} from '../../../src/perps/signing/privateKey.ts'

const DEV_PK = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d' // public dev key
const hex64 = (n: bigint): string => `0x${n.toString(16).padStart(64, '0')}`

/** Every encoding a library or a careless message could print a 32-byte key in. */
function keyEncodings(key: string): string[] {
  const body = key.trim().replace(/^0x/, '')
  const out = [body, body.toLowerCase(), body.toUpperCase()]
  if (/^[0-9a-fA-F]{64}$/.test(body)) {
    const bytes = Buffer.from(body, 'hex')
    out.push(BigInt(`0x${body}`).toString(), bytes.toString('base64'), bytes.toString('base64url'))
  }
  // A form shorter than 16 characters (the zero key's "0") cannot be told apart from ordinary text.
  return out.filter((s) => s.length >= 16)
}

function renderings(e: unknown): string {
  const err = e as Error
  return [
    String(err),
    err.message,
    err.stack ?? '',
    inspect(err, { depth: 10, showHidden: true }),
    JSON.stringify(err),
  ].join('\n')
}

describe('privateKeyProblem', () => {
  it.each([
    ['1', hex64(1n)],
    ['n-1', hex64(SECP256K1_N - 1n)],
    ['a dev key', DEV_PK],
    ['a dev key without 0x', DEV_PK.slice(2)],
    ['upper-case hex', `0x${DEV_PK.slice(2).toUpperCase()}`],
  ])('accepts %s', (_label, key) => {
    expect(privateKeyProblem(key)).toBeUndefined()
  })

  it.each([
    ['zero', hex64(0n), 'outside the secp256k1 range'],
    ['all ff', `0x${'ff'.repeat(32)}`, 'outside the secp256k1 range'],
    ['n', hex64(SECP256K1_N), 'outside the secp256k1 range'],
    ['n+1', hex64(SECP256K1_N + 1n), 'outside the secp256k1 range'],
    ['31 bytes', `0x${'ab'.repeat(31)}`, 'expected 32 bytes of hex'],
    ['non-hex', `0x${'zz'.repeat(32)}`, 'expected 32 bytes of hex'],
    ['empty', '', 'missing'],
  ])('refuses %s', (_label, key, reason) => {
    expect(privateKeyProblem(key)).toContain(reason)
  })
})

describe('parsePrivateKey / addressOfPrivateKey', () => {
  it('gives the same address as viem for a valid key', () => {
    expect(addressOfPrivateKey(DEV_PK)).toBe(privateKeyToAccount(DEV_PK).address)
    expect(parsePrivateKey(` ${DEV_PK.slice(2)} `)).toBe(DEV_PK)
  })

  it.each([hex64(0n), `0x${'ff'.repeat(32)}`, hex64(SECP256K1_N), hex64(SECP256K1_N + 12_345n)])(
    '%s: a SigningError naming the variable, with no key material in any encoding',
    (key) => {
      let err: unknown
      try {
        addressOfPrivateKey(key, 'PERPS_PROXY_PRIVATE_KEY')
      } catch (e) {
        err = e
      }
      expect(err).toBeInstanceOf(SigningError)
      expect((err as SigningError).shortMessage).toBe(
        'invalid PERPS_PROXY_PRIVATE_KEY: outside the secp256k1 range (1 to n-1)',
      )
      expect((err as Error).cause).toBeUndefined()
      const text = renderings(err)
      for (const form of keyEncodings(key)) expect(text).not.toContain(form)
    },
  )

  it("viem's own error would have printed the key as a decimal number (why viem never sees it first)", () => {
    const key = `0x${'ff'.repeat(32)}` as const
    const viemText = (() => {
      try {
        privateKeyToAccount(key)
        return ''
      } catch (e) {
        return renderings(e)
      }
    })()
    expect(viemText).toContain(BigInt(key).toString())
  })
})

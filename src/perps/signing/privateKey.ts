/**
 * Private-key validation before any use: 32 bytes of hex inside the secp256k1 scalar range 1..n-1.
 * Messages name only the rule that failed, never the key in any encoding (viem's own error prints the
 * key as a decimal number, so viem is given only keys that passed here).
 */
import type { Address, Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { SigningError } from '../../errors.ts'
import { isHexText } from '../../guards.ts'

/** The secp256k1 group order n (a public curve constant, SEC 2 §2.4.1): a private key must be in [1, n-1]. */
export const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

const HEX64_RE = /^(0x)?[0-9a-fA-F]{64}$/

/** Why `value` is not a usable private key (a sentence without key material), or undefined if it is. */
export function privateKeyProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') return 'private key is missing'
  const trimmed = value.trim()
  if (!HEX64_RE.test(trimmed)) return 'expected 32 bytes of hex (64 hex digits, optional 0x)'
  const scalar = BigInt(trimmed.startsWith('0x') ? trimmed : `0x${trimmed}`)
  if (scalar === 0n || scalar >= SECP256K1_N) return 'outside the secp256k1 range (1 to n-1)'
  return undefined
}

/**
 * The key as `0x`-prefixed hex.
 * @throws {@link SigningError} naming the rule that failed (no cause: nothing that could echo the key).
 */
export function parsePrivateKey(value: unknown, label = 'private key'): Hex {
  const problem = privateKeyProblem(value)
  if (problem !== undefined) {
    throw new SigningError(
      problem === 'private key is missing' ? `${label} is missing` : `invalid ${label}: ${problem}`,
    )
  }
  const trimmed = String(value).trim() // a string: privateKeyProblem checked it
  return isHexText(trimmed) ? trimmed : (`0x${trimmed}` as const)
}

/**
 * The address of a key, validated first.
 * @throws {@link SigningError} without key material.
 */
export function addressOfPrivateKey(value: unknown, label = 'private key'): Address {
  const hex = parsePrivateKey(value, label)
  try {
    return privateKeyToAccount(hex).address
  } catch {
    throw new SigningError(`invalid ${label}: rejected by the signing library`)
  }
}

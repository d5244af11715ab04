/**
 * The two EIP-712 message families of the perps venue (protocol-notes a.1):
 * - `Op(bytes32 data,uint64 salt,uint64 ts)` where `data = keccak256(msgpack(signedOp))` and
 *   `signedOp` is a positional array with every `undefined` removed, recursively;
 * - `CreateProxy(address addr,uint64 exp,uint64 salt,uint64 ts)`, signed by the owner.
 * Everything here is pure: hashing only, no keys.
 */
import { Encoder } from '@msgpack/msgpack'
import type { Address, Hex } from 'viem'
import { hashStruct, hashTypedData, hexToBytes, keccak256, toHex } from 'viem/utils'
import { InputValidationError } from '../../errors.ts'
import { isHexText } from '../../guards.ts'
import { type PerpsDomain, perpsDomainSeparator } from './domain.ts'
import { keccak256Bytes, keccak256Hex } from './keccak.ts'

/** A value that may appear in a positional signed op. `undefined` marks an omitted optional slot. */
export type SignableValue = boolean | number | string | undefined | readonly SignableValue[]

/** The list member of `SignableValue` (`Array.isArray` does not narrow a readonly array type). */
function isSignableList(value: SignableValue): value is readonly SignableValue[] {
  return Array.isArray(value)
}

/** `[type, args]` or `[type, args, group]`, before compaction. */
export type SignedOp = readonly [type: string, args: readonly SignableValue[], ...rest: SignableValue[]]

/** salt and ts as sent in the JSON body: integers (ts in Unix ms). */
export interface Stamp {
  salt: number
  ts: number
}

export const OP_TYPES = {
  Op: [
    { name: 'data', type: 'bytes32' },
    { name: 'salt', type: 'uint64' },
    { name: 'ts', type: 'uint64' },
  ],
} as const

export const CREATE_PROXY_TYPES = {
  CreateProxy: [
    { name: 'addr', type: 'address' },
    { name: 'exp', type: 'uint64' },
    { name: 'salt', type: 'uint64' },
    { name: 'ts', type: 'uint64' },
  ],
} as const

export const OP_TYPE_STRING = 'Op(bytes32 data,uint64 salt,uint64 ts)'
export const CREATE_PROXY_TYPE_STRING = 'CreateProxy(address addr,uint64 exp,uint64 salt,uint64 ts)'
export const OP_TYPEHASH: Hex = keccak256(toHex(OP_TYPE_STRING))
export const CREATE_PROXY_TYPEHASH: Hex = keccak256(toHex(CREATE_PROXY_TYPE_STRING))

const MAX_UINT64 = (1n << 64n) - 1n

/** Removes `undefined` elements from arrays, recursively (the official client's `compactSignableValue`). */
export function compactSignableValue(value: SignableValue): SignableValue {
  if (isSignableList(value)) {
    return value.filter((item) => item !== undefined).map((item) => compactSignableValue(item))
  }
  return value
}

/**
 * One encoder with `encode`'s default options, reused: `encode()` builds an `Encoder` and its 2 KiB
 * buffer per call (a command's digest is on the tick-to-trade path). `Encoder.encode` returns a copy
 * of its buffer and clones itself if re-entered, so sharing it is safe; the bytes are `encode`'s.
 */
const encoder = new Encoder()

/**
 * The exact bytes that are hashed: default `@msgpack/msgpack` encoding of the compacted op.
 * @throws {@link InputValidationError} for numbers that would not encode as msgpack integers.
 */
export function encodeSignedOp(signedOp: SignedOp): Uint8Array {
  const compact = compactSignableValue(signedOp)
  assertIntegersOnly(compact, 'signedOp')
  return encoder.encode(compact)
}

/** `keccak256(msgpack(compact(signedOp)))`, the `data` field of the Op struct. */
export function signedOpDataHash(signedOp: SignedOp): Hex {
  return keccak256Hex(encodeSignedOp(signedOp))
}

/** The full typed-data payload of an Op, as viem's `signTypedData`/`hashTypedData` take it. */
export function opTypedData(domain: PerpsDomain, signedOp: SignedOp, stamp: Stamp) {
  return {
    domain: { name: domain.name, version: domain.version, chainId: domain.chainId },
    types: OP_TYPES,
    primaryType: 'Op' as const,
    message: {
      data: signedOpDataHash(signedOp),
      salt: toUint64(stamp.salt, 'salt'),
      ts: toUint64(stamp.ts, 'ts'),
    },
  }
}

/**
 * EIP-712 digest of an Op: `keccak256(0x1901 ‖ domainSeparator ‖ structHash)`, with
 * `structHash = keccak256(OP_TYPEHASH ‖ data ‖ uint256(salt) ‖ uint256(ts))`. Equal to viem's
 * `hashTypedData(opTypedData(…))` (tested), but the struct is fixed, so its four words are laid out
 * directly and the domain separator is computed once per domain: a command's digest is on the
 * tick-to-trade path, and viem's generic encoder took about 0.2 ms of it.
 */
export function opDigest(domain: PerpsDomain, signedOp: SignedOp, stamp: Stamp): Hex {
  return keccak256Hex(opDigestInput(domain, signedOp, stamp))
}

/** `opDigest` as its 32 bytes, as a signer takes it (no hex spelling and parsing in between). */
export function opDigestBytes(domain: PerpsDomain, signedOp: SignedOp, stamp: Stamp): Uint8Array {
  return keccak256Bytes(opDigestInput(domain, signedOp, stamp))
}

/** `0x1901 ‖ domainSeparator ‖ structHash`: what the digest hashes. */
function opDigestInput(domain: PerpsDomain, signedOp: SignedOp, stamp: Stamp): Uint8Array {
  const struct = new Uint8Array(128)
  struct.set(OP_TYPEHASH_BYTES, 0)
  struct.set(keccak256Bytes(encodeSignedOp(signedOp)), 32)
  const words = new DataView(struct.buffer)
  // uint64 in a 32-byte big-endian word: the last 8 bytes.
  words.setBigUint64(88, toUint64(stamp.salt, 'salt'))
  words.setBigUint64(120, toUint64(stamp.ts, 'ts'))
  const outer = new Uint8Array(66)
  outer[0] = 0x19
  outer[1] = 0x01
  outer.set(domainSeparatorBytes(domain), 2)
  outer.set(keccak256Bytes(struct), 34)
  return outer
}

const OP_TYPEHASH_BYTES = hexToBytes(OP_TYPEHASH)
const separators = new Map<string, Uint8Array>()

function domainSeparatorBytes(domain: PerpsDomain): Uint8Array {
  const key = `${domain.chainId}\u0000${domain.name}\u0000${domain.version}`
  let bytes = separators.get(key)
  if (bytes === undefined) {
    bytes = hexToBytes(perpsDomainSeparator(domain))
    // Domains are few (one per venue); the bound only guards against a caller minting them.
    if (separators.size >= 16) separators.clear()
    separators.set(key, bytes)
  }
  return bytes
}

export interface CreateProxyMessage {
  /** The new proxy address, exactly as sent in `op.args.proxy`. */
  proxy: string
  /** Proxy expiry, Unix ms (`op.args.expiry`). */
  expiry: number
}

/** The typed-data payload of a CreateProxy struct. */
export function createProxyTypedData(domain: PerpsDomain, msg: CreateProxyMessage, stamp: Stamp) {
  return {
    domain: { name: domain.name, version: domain.version, chainId: domain.chainId },
    types: CREATE_PROXY_TYPES,
    primaryType: 'CreateProxy' as const,
    message: createProxyStruct(msg, stamp),
  }
}

function createProxyStruct(msg: CreateProxyMessage, stamp: Stamp) {
  return {
    addr: toAddressForHashing(msg.proxy, 'proxy'),
    exp: toUint64(msg.expiry, 'expiry'),
    salt: toUint64(stamp.salt, 'salt'),
    ts: toUint64(stamp.ts, 'ts'),
  }
}

/** `hashStruct` of a CreateProxy message (the vector's `structHash`). */
export function createProxyStructHash(msg: CreateProxyMessage, stamp: Stamp): Hex {
  return hashStruct({
    data: createProxyStruct(msg, stamp),
    primaryType: 'CreateProxy',
    types: CREATE_PROXY_TYPES,
  })
}

export function createProxyDigest(domain: PerpsDomain, msg: CreateProxyMessage, stamp: Stamp): Hex {
  return hashTypedData(createProxyTypedData(domain, msg, stamp))
}

/**
 * An `address` field hashes to its 20 bytes, so case cannot change the digest. viem rejects a
 * mixed-case string with a bad checksum; lower-casing only for hashing keeps the body verbatim.
 */
function toAddressForHashing(value: string, field: string): Address {
  const lower = typeof value === 'string' ? value.toLowerCase() : undefined
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(value) || !isHexText(lower)) {
    throw new InputValidationError(`${field} must be a 0x-prefixed 20-byte hex address`)
  }
  return lower
}

/** salt/ts/exp travel as JSON numbers; the struct wants uint64, which viem takes as bigint. */
export function toUint64(value: number, field: string): bigint {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new InputValidationError(`${field} must be a non-negative safe integer`)
  }
  const big = BigInt(value)
  if (big > MAX_UINT64) throw new InputValidationError(`${field} exceeds uint64`)
  return big
}

function assertIntegersOnly(value: SignableValue, path: string): void {
  // The path is spelled only for a refusal: building it for every element cost more than the check.
  const bad = firstUnsafeNumber(value)
  if (bad !== undefined) throw new InputValidationError(`${path}${bad} must be a safe integer`)
}

/** Where the first non-integer or unsafe number sits (`""`, `"[1][0]"`), undefined if none. */
function firstUnsafeNumber(value: SignableValue): string | undefined {
  // A non-integer or unsafe number would encode as float64, which the venue would hash differently.
  if (typeof value === 'number') return Number.isSafeInteger(value) ? undefined : ''
  if (!isSignableList(value)) return undefined
  for (let i = 0; i < value.length; i++) {
    const inner = firstUnsafeNumber(value[i])
    if (inner !== undefined) return `[${i}]${inner}`
  }
  return undefined
}

/**
 * Golden vectors from protocol-notes a.4 (chainId 137, public Hardhat/Anvil dev keys, RFC 6979
 * deterministic ECDSA): exact byte equality for msgpack, data, structHash, digest and signature.
 */
import { bytesToHex, encodeAbiParameters, hashStruct, keccak256, toHex } from 'viem'
import { describe, expect, it } from 'vitest'
import type { Clock } from '../../../src/clock.ts'
import { createCommandSigner } from '../../../src/perps/signing/commandSigner.ts'
import {
  DEFAULT_PERPS_DOMAIN,
  perpsDomainFromExchangeInfo,
  perpsDomainSeparator,
} from '../../../src/perps/signing/domain.ts'
import { buildCancelOrders, buildCreateOrders } from '../../../src/perps/signing/ops.ts'
import {
  CREATE_PROXY_TYPEHASH,
  CREATE_PROXY_TYPES,
  createProxyDigest,
  createProxyStructHash,
  encodeSignedOp,
  OP_TYPEHASH,
  OP_TYPES,
  opDigest,
  signedOpDataHash,
} from '../../../src/perps/signing/typedData.ts'
import { seededRandom } from '../../../src/random.ts'

// Public test keys (never funded).
const OWNER_PK = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const OWNER = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
const PROXY_PK = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'
const PROXY = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'

const clock: Clock = {
  now: () => 1_767_000_000_000,
  setTimeout: () => undefined,
  clearTimeout: () => undefined,
}
const owner = createCommandSigner({ privateKey: OWNER_PK, clock, salts: seededRandom(1) })
const proxy = createCommandSigner({ privateKey: PROXY_PK, clock, salts: seededRandom(1) })

describe('constants', () => {
  it('typehashes equal the documented constants', () => {
    expect(OP_TYPEHASH).toBe('0xc13e0021a8636e16ba7c86634dc8339421d7c3dc3c61161cb5ca117541ea2ff5')
    expect(CREATE_PROXY_TYPEHASH).toBe('0x35a8d7b92fbc5c3ec1101dd8870314497b1bacfe4fb0e11708d5e6e5e460d993')
    expect(keccak256(toHex('EIP712Domain(string name,string version,uint256 chainId)'))).toBe(
      '0xc2f8787176b8ac6bf7215b4adcc1e069bf4ab82d9ab1df05a57a91d425935b6e',
    )
  })

  it('the type definitions viem hashes with use exactly those typehashes', () => {
    const data = keccak256(toHex('anything'))
    const opStruct = hashStruct({ data: { data, salt: 7n, ts: 9n }, primaryType: 'Op', types: OP_TYPES })
    expect(opStruct).toBe(
      keccak256(
        encodeAbiParameters(
          [{ type: 'bytes32' }, { type: 'bytes32' }, { type: 'uint64' }, { type: 'uint64' }],
          [OP_TYPEHASH, data, 7n, 9n],
        ),
      ),
    )
    const cp = hashStruct({
      data: { addr: PROXY, exp: 1n, salt: 2n, ts: 3n },
      primaryType: 'CreateProxy',
      types: CREATE_PROXY_TYPES,
    })
    expect(cp).toBe(
      keccak256(
        encodeAbiParameters(
          [
            { type: 'bytes32' },
            { type: 'address' },
            { type: 'uint64' },
            { type: 'uint64' },
            { type: 'uint64' },
          ],
          [CREATE_PROXY_TYPEHASH, PROXY, 1n, 2n, 3n],
        ),
      ),
    )
  })

  it('domain separator for chainId 137 without verifyingContract', () => {
    expect(perpsDomainSeparator(DEFAULT_PERPS_DOMAIN)).toBe(
      '0x38c098bf3fef934754c5164631cf31d78b2185103816a46ccdf281ecec4cc920',
    )
    const fromInfo = perpsDomainFromExchangeInfo({ name: 'Polymarket', version: '1', chain_id: 137 })
    expect(perpsDomainSeparator(fromInfo)).toBe(
      '0x38c098bf3fef934754c5164631cf31d78b2185103816a46ccdf281ecec4cc920',
    )
  })

  it('the dev keys give the documented addresses', () => {
    expect(owner.address).toBe(OWNER)
    expect(proxy.address).toBe(PROXY)
  })
})

describe('vector 1: createProxy (owner EOA)', () => {
  const msg = { proxy: PROXY, expiry: 1_767_225_600_000 }
  const stamp = { salt: 123_456_789, ts: 1_767_000_000_000 }

  it('structHash, digest and signature', async () => {
    expect(createProxyStructHash(msg, stamp)).toBe(
      '0xe036469f3341fed1a4cb3aa03f1c9a57173db255ca75a8615e689ffc5c141524',
    )
    expect(createProxyDigest(DEFAULT_PERPS_DOMAIN, msg, stamp)).toBe(
      '0x7814a0b23939777ce9d028853ea1efa2b10ee0c2f1cce4afa7e547a9d16269af',
    )
    expect(await owner.signCreateProxyMessage(msg, stamp)).toBe(
      '0x765f06b06d2faa45bff4263d093ce5c4965842866afe934d5cfed263f10fabaf4fd99e968a9d0c0a67264f26af99de5457dc06af97737505f6beec9d22f2119c1b',
    )
  })

  it('address case does not change the hash (an address field hashes its 20 bytes)', () => {
    const lower = { ...msg, proxy: PROXY.toLowerCase() }
    expect(createProxyStructHash(lower, stamp)).toBe(createProxyStructHash(msg, stamp))
  })
})

describe('vector 2: createOrders, GTC post-only buy', () => {
  const built = buildCreateOrders({
    orders: [{ iid: 1, buy: true, p: '100.5', qty: '2', tif: 'gtc', po: true }],
  })
  const stamp = { salt: 123_456_789, ts: 1_767_000_000_000 }

  it('JSON body op and compacted positional array', () => {
    expect(JSON.stringify(built.op)).toBe(
      '{"type":"createOrders","args":[{"iid":1,"buy":true,"po":true,"qty":"2","tif":"gtc","p":"100.5"}]}',
    )
    expect(built.signedOp).toStrictEqual([
      'createOrders',
      [[1, true, '100.5', '2', 'gtc', true, undefined, undefined, undefined]],
    ])
  })

  it('msgpack bytes, data, digest and signature', async () => {
    expect(bytesToHex(encodeSignedOp(built.signedOp))).toBe(
      '0x92ac6372656174654f7264657273919601c3a53130302e35a132a3677463c3',
    )
    expect(signedOpDataHash(built.signedOp)).toBe(
      '0x4e421f22d159e5b497ce5bc9aa1bc4b0cf6960e2fd4582ee4d189868af6c8337',
    )
    expect(opDigest(DEFAULT_PERPS_DOMAIN, built.signedOp, stamp)).toBe(
      '0x1a4d966f253f7a79e2afad97480b3ee3c705674736c3bc3444da6d66a5635ae5',
    )
    expect(await proxy.signOp(built.signedOp, stamp)).toBe(
      '0x7875f34de4f6dbd1bf23224bd7102b3e7480017dc51986528d6bfec8499c75ef26acfba8594cbf9b028391d21e9a1e1f0882fe5cc21e95a6308c3aa64697c8321b',
    )
  })
})

describe('vector 4: cancelOrders', () => {
  const built = buildCancelOrders({ oids: [1_234_567_890, 1_234_567_891] })
  const stamp = { salt: 7, ts: 1_767_000_002_000 }

  it('msgpack bytes (uint32 integers, not floats), data, digest and signature', async () => {
    expect(built.op).toStrictEqual({ type: 'cancelOrders', args: [1_234_567_890, 1_234_567_891] })
    expect(bytesToHex(encodeSignedOp(built.signedOp))).toBe(
      '0x92ac63616e63656c4f726465727392ce499602d2ce499602d3',
    )
    expect(signedOpDataHash(built.signedOp)).toBe(
      '0x0b60f6dd5e6b7b32f11303ef7cacb7c8317ae0f19f7a2b345ebd819785a9db80',
    )
    expect(opDigest(DEFAULT_PERPS_DOMAIN, built.signedOp, stamp)).toBe(
      '0x17505f5f9dad172645fd0d9a94f14743d55f385ffcd2f33cfc1f50be53d2b481',
    )
    expect(await proxy.signOp(built.signedOp, stamp)).toBe(
      '0xa01acf4684e4629f5f8bf8ace3fac1dfe85b7c6a6ad5ffc9cf0231a814f192580877a2949588f5898ab30316280f10853e53704ee817c7bd1cefc2df8d2724711c',
    )
  })
})

import { inspect } from 'node:util'
import fc from 'fast-check'
import { bytesToHex, hashTypedData, recoverTypedDataAddress } from 'viem'
import { privateKeyToAccount, sign } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import type { Clock } from '../../../src/clock.ts'
import { InputValidationError, SigningError } from '../../../src/errors.ts'
import { createCommandSigner } from '../../../src/perps/signing/commandSigner.ts'
import { createDigestSigner } from '../../../src/perps/signing/digestSigner.ts'
import { DEFAULT_PERPS_DOMAIN, perpsDomain } from '../../../src/perps/signing/domain.ts'
import { buildCancelOrders, buildCreateOrders } from '../../../src/perps/signing/ops.ts'
import { SECP256K1_N } from '../../../src/perps/signing/privateKey.ts'
import { SaltSource } from '../../../src/perps/signing/salt.ts'
import {
  encodeSignedOp,
  opDigest,
  opDigestBytes,
  opTypedData,
  type SignableValue,
  type SignedOp,
} from '../../../src/perps/signing/typedData.ts'
import type { Random } from '../../../src/random.ts'
import { seededRandom } from '../../../src/random.ts'

// Public Hardhat/Anvil dev key (never funded).
const PROXY_PK = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'
const PROXY = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const OTHER = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'

function fixedClock(start: number): Clock & { t: number } {
  const c = {
    t: start,
    now: () => c.t,
    setTimeout: () => undefined,
    clearTimeout: () => undefined,
  }
  return c
}

/** A Random whose uint32 draws follow `values`, then repeat the last one forever. */
function scriptedRandom(values: readonly number[]): Random {
  let i = 0
  const nextInt = (): number => values[Math.min(i++, values.length - 1)] ?? 0
  return {
    next: () => nextInt() / 4_294_967_296,
    int: () => nextInt(),
    normal: () => 0,
    pick: <T>(items: readonly T[]): T => items[0] as T,
  }
}

const NOW = 1_767_000_000_000
const order = { iid: 1, buy: true, p: '100.5', qty: '2', tif: 'gtc' as const, po: true }

async function recover(
  signedOp: SignedOp,
  stamp: { salt: number; ts: number },
  sig: `0x${string}`,
  chainId = 137,
) {
  return recoverTypedDataAddress({
    ...opTypedData(perpsDomain({ chainId }), signedOp, stamp),
    signature: sig,
  })
}

/** Positional ops of any shape the encoder takes: nested arrays of ints, strings, booleans, holes. */
const signable: fc.Arbitrary<SignableValue> = fc.letrec<{ v: SignableValue }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.integer({ min: -(2 ** 40), max: 2 ** 53 - 1 }),
    fc.string({ maxLength: 12 }),
    fc.boolean(),
    fc.constant(undefined),
    fc.array(tie('v'), { maxLength: 5 }),
  ),
})).v
const anyOp = fc
  .tuple(
    fc.constantFrom('createOrders', 'modifyOrders', 'cancelOrders'),
    fc.array(signable, { maxLength: 6 }),
  )
  .map(([type, args]): SignedOp => [type, args])
const anyStamp = fc.record({
  salt: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
  ts: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
})

describe('opDigest and signOp against viem typed data', () => {
  it('opDigest equals hashTypedData(opTypedData) for generated ops, stamps and domains', () => {
    fc.assert(
      fc.property(anyOp, anyStamp, fc.integer({ min: 1, max: 2 ** 40 }), (op, stamp, chainId) => {
        const domain = perpsDomain({ chainId })
        expect(opDigest(domain, op, stamp)).toBe(hashTypedData(opTypedData(domain, op, stamp)))
      }),
      { numRuns: 300 },
    )
  })

  it('opDigestBytes is opDigest as bytes, and the signer signs them as it signs the hex', () => {
    const signer = createDigestSigner(PROXY_PK)
    fc.assert(
      fc.property(anyOp, anyStamp, (op, stamp) => {
        const bytes = opDigestBytes(DEFAULT_PERPS_DOMAIN, op, stamp)
        const hex = opDigest(DEFAULT_PERPS_DOMAIN, op, stamp)
        expect(bytesToHex(bytes)).toBe(hex)
        expect(signer.sign(bytes)).toBe(signer.sign(hex))
      }),
      { numRuns: 100 },
    )
  })

  it('encodeSignedOp names the first number that is not a safe integer, and encodes again after it', () => {
    const op: SignedOp = [
      'modifyOrders',
      [
        [1, '2', '3'],
        [4, 5.5, '6'],
      ],
      [7, 2 ** 60],
    ]
    expect(() => encodeSignedOp(op)).toThrow(
      new InputValidationError('signedOp[1][1][1] must be a safe integer'),
    )
    expect(() => encodeSignedOp(['x', [Number.NaN]])).toThrow('signedOp[1][0] must be a safe integer')
    expect(bytesToHex(encodeSignedOp(['x', [1]]))).toBe('0x92a1789101')
  })

  it('the digest signer (libsecp256k1) gives the bytes of viem sign for generated keys and digests', async () => {
    const bytes32 = fc
      .uint8Array({ minLength: 32, maxLength: 32 })
      .map((b) => `0x${Buffer.from(b).toString('hex')}` as const)
    // Keys in [1, n): a zero or too-large draw is skipped (the loader refuses those before this point).
    const key = bytes32.filter((k) => BigInt(k) > 0n && BigInt(k) < SECP256K1_N)
    await fc.assert(
      fc.asyncProperty(key, bytes32, async (privateKey, hash) => {
        const signer = createDigestSigner(privateKey)
        expect(signer.address).toBe(privateKeyToAccount(privateKey).address)
        expect(signer.sign(hash)).toBe(await sign({ hash, privateKey, to: 'hex' }))
      }),
      { numRuns: 200 },
    )
  })

  it('signOp gives the bytes of viem signTypedData for the same key', async () => {
    const account = privateKeyToAccount(PROXY_PK)
    const signer = createCommandSigner({
      privateKey: PROXY_PK,
      clock: fixedClock(NOW),
      salts: seededRandom(1),
    })
    await fc.assert(
      fc.asyncProperty(anyOp, anyStamp, async (op, stamp) => {
        const typed = opTypedData(signer.domain, op, stamp)
        expect(await signer.signOp(op, stamp)).toBe(await account.signTypedData(typed))
      }),
      { numRuns: 40 },
    )
  })
})

describe('CommandSigner.signOp', () => {
  const signer = createCommandSigner({ privateKey: PROXY_PK, clock: fixedClock(NOW), salts: seededRandom(3) })
  const base = buildCreateOrders({ orders: [order] })
  const stamp = { salt: 42, ts: NOW }

  it('produces 65-byte r‖s‖v hex with v = 27|28 that recovers to the signer', async () => {
    const sig = await signer.signOp(base.signedOp, stamp)
    expect(sig).toMatch(/^0x[0-9a-f]{128}(1b|1c)$/)
    expect(await recover(base.signedOp, stamp, sig)).toBe(PROXY)
  })

  it('changing salt, ts, a price, an oid or the chainId changes the signature and breaks recovery', async () => {
    const sig = await signer.signOp(base.signedOp, stamp)
    const otherPrice = buildCreateOrders({ orders: [{ ...order, p: '100.6' }] }).signedOp
    const variants: [string, SignedOp, { salt: number; ts: number }, number][] = [
      ['salt', base.signedOp, { ...stamp, salt: 43 }, 137],
      ['ts', base.signedOp, { ...stamp, ts: NOW + 1 }, 137],
      ['price', otherPrice, stamp, 137],
      ['chainId', base.signedOp, stamp, 80_002],
    ]
    for (const [, op, st, chainId] of variants) {
      const other = createCommandSigner({
        privateKey: PROXY_PK,
        clock: fixedClock(NOW),
        salts: seededRandom(3),
        domain: perpsDomain({ chainId }),
      })
      expect(await other.signOp(op, st)).not.toBe(sig)
      expect(await recover(op, st, sig, chainId)).not.toBe(PROXY)
    }
    const cancel = buildCancelOrders({ oids: [1_234_567_890] })
    const cancelSig = await signer.signOp(cancel.signedOp, stamp)
    const otherOid = buildCancelOrders({ oids: [1_234_567_891] }).signedOp
    expect(await signer.signOp(otherOid, stamp)).not.toBe(cancelSig)
    expect(await recover(otherOid, stamp, cancelSig)).not.toBe(PROXY)
  })

  it('rejects salt/ts that are not non-negative safe integers', async () => {
    await expect(signer.signOp(base.signedOp, { salt: -1, ts: NOW })).rejects.toThrow(InputValidationError)
    await expect(signer.signOp(base.signedOp, { salt: 1, ts: 1.5 })).rejects.toThrow(InputValidationError)
    await expect(signer.signOp(base.signedOp, { salt: 2 ** 53, ts: NOW })).rejects.toThrow(
      InputValidationError,
    )
  })
})

describe('CommandSigner.signCommand', () => {
  it('returns {op, sig, salt, ts} with ts from the clock (floored) and a drawn salt', async () => {
    const clock = fixedClock(NOW + 0.7)
    const signer = createCommandSigner({ privateKey: PROXY_PK, clock, salts: scriptedRandom([1234]) })
    const built = buildCancelOrders({ oids: [5] })
    const cmd = await signer.signCommand(built)
    expect(cmd).toStrictEqual({ op: { type: 'cancelOrders', args: [5] }, sig: cmd.sig, salt: 1234, ts: NOW })
    expect(await recover(built.signedOp, { salt: 1234, ts: NOW }, cmd.sig)).toBe(PROXY)
  })

  it('adds exp (unsigned) when valid; exp edges: now rejected, now+5000 accepted, now+5001 rejected', async () => {
    const signer = createCommandSigner({
      privateKey: PROXY_PK,
      clock: fixedClock(NOW),
      salts: seededRandom(1),
    })
    const built = buildCancelOrders({ oids: [5] })
    await expect(signer.signCommand(built, { exp: NOW })).rejects.toThrow(InputValidationError)
    await expect(signer.signCommand(built, { exp: NOW + 5_001 })).rejects.toThrow(InputValidationError)
    const ok = await signer.signCommand(built, { exp: NOW + 5_000 })
    expect(ok.exp).toBe(NOW + 5_000)
    // exp is a sibling field: the signature is the same as without it for the same stamp.
    expect(await signer.signOp(built.signedOp, { salt: ok.salt, ts: ok.ts })).toBe(ok.sig)
    const rel = await signer.signCommand(built, { expAfterMs: 60_000 })
    expect(rel.exp).toBe(NOW + 5_000)
    await expect(signer.signCommand(built, { exp: NOW + 1, expAfterMs: 1 })).rejects.toThrow(
      InputValidationError,
    )
  })

  it('never reuses a salt even when the Random repeats itself', async () => {
    const signer = createCommandSigner({
      privateKey: PROXY_PK,
      clock: fixedClock(NOW),
      salts: scriptedRandom([7]),
    })
    const built = buildCancelOrders({ oids: [5] })
    const salts = new Set<number>()
    for (let i = 0; i < 20; i++) salts.add((await signer.signCommand(built)).salt)
    expect(salts.size).toBe(20)
  })

  it('two signers of one key sharing a SaltSource do not collide', async () => {
    const shared = new SaltSource(scriptedRandom([99]))
    const a = createCommandSigner({ privateKey: PROXY_PK, clock: fixedClock(NOW), salts: shared })
    const b = createCommandSigner({ privateKey: PROXY_PK.slice(2), clock: fixedClock(NOW), salts: shared })
    const built = buildCancelOrders({ oids: [5] })
    const sa = (await a.signCommand(built)).salt
    const sb = (await b.signCommand(built)).salt
    expect(sa).toBe(99)
    expect(sb).not.toBe(sa)
  })
})

describe('CommandSigner.signCreateProxy', () => {
  it('builds the owner-signed body with label/code outside the signature', async () => {
    const owner = createCommandSigner({
      privateKey: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
      clock: fixedClock(NOW),
      salts: scriptedRandom([123_456_789]),
    })
    const body = await owner.signCreateProxy({
      proxy: PROXY,
      expiry: 1_767_225_600_000,
      label: 'bot',
      code: 'REF',
    })
    expect(body).toStrictEqual({
      op: { type: 'createProxy', args: { owner: OTHER, proxy: PROXY, expiry: 1_767_225_600_000 } },
      // protocol-notes a.4 vector 1: same inputs, same signature.
      sig: '0x765f06b06d2faa45bff4263d093ce5c4965842866afe934d5cfed263f10fabaf4fd99e968a9d0c0a67264f26af99de5457dc06af97737505f6beec9d22f2119c1b',
      salt: 123_456_789,
      ts: NOW,
      label: 'bot',
      code: 'REF',
    })
    await expect(owner.signCreateProxy({ proxy: PROXY, expiry: NOW })).rejects.toThrow(InputValidationError)
    await expect(owner.signCreateProxy({ proxy: '0x1234', expiry: NOW + 1 })).rejects.toThrow(
      InputValidationError,
    )
  })
})

describe('key secrecy', () => {
  const bad = [
    '0xdeadbeefcafe',
    `0x${'zz'.repeat(32)}`,
    `0x${'ff'.repeat(32)}`, // above the curve order: viem's own message would print it
    `0x${'00'.repeat(32)}`,
    '',
  ]

  it.each(bad)('invalid key %# -> SigningError without the key in message, details or cause', (pk) => {
    let err: unknown
    try {
      createCommandSigner({ privateKey: pk, clock: fixedClock(NOW), salts: seededRandom(1) })
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(SigningError)
    const e = err as SigningError
    const everything = [e.message, e.stack ?? '', inspect(e, { depth: 5 }), JSON.stringify(e)].join('\n')
    const hexBody = pk.replace(/^0x/, '')
    if (hexBody.length > 0 && !/^0+$/.test(hexBody)) expect(everything).not.toContain(hexBody)
    if (/^[0-9a-f]{64}$/i.test(hexBody) && BigInt(`0x${hexBody}`) > 0n) {
      expect(everything).not.toContain(BigInt(`0x${hexBody}`).toString())
    }
    expect(e.cause).toBeUndefined()
  })

  it('JSON.stringify, util.inspect and String show only the address', () => {
    const signer = createCommandSigner({
      privateKey: PROXY_PK,
      clock: fixedClock(NOW),
      salts: seededRandom(1),
    })
    const hexBody = PROXY_PK.slice(2)
    const views = [
      JSON.stringify(signer),
      JSON.stringify({ nested: { signer } }),
      inspect(signer, { depth: 10, showHidden: true }),
      inspect({ signer }, { depth: 10 }),
      String(signer),
      `${signer}`,
      Object.keys(signer).join(','),
    ]
    for (const v of views) {
      expect(v).not.toContain(hexBody)
      expect(v.toLowerCase()).not.toContain(BigInt(PROXY_PK).toString())
    }
    expect(JSON.parse(JSON.stringify(signer))).toStrictEqual({ address: PROXY })
    expect(inspect(signer)).toBe(`CommandSigner { address: '${PROXY}' }`)
  })

  it('uses the default production domain unless overridden', () => {
    const signer = createCommandSigner({
      privateKey: PROXY_PK,
      clock: fixedClock(NOW),
      salts: seededRandom(1),
    })
    expect(signer.domain).toStrictEqual(DEFAULT_PERPS_DOMAIN)
  })
})

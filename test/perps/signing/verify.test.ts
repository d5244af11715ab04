import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Clock } from '../../../src/clock.ts'
import { InputValidationError } from '../../../src/errors.ts'
import { createCommandSigner } from '../../../src/perps/signing/commandSigner.ts'
import { DEFAULT_PERPS_DOMAIN, perpsDomain } from '../../../src/perps/signing/domain.ts'
import {
  type BuiltOp,
  buildCancelAll,
  buildCancelOrders,
  buildCreateOrders,
  buildModifyOrders,
  type CreateOrderInput,
  type PerpsOp,
} from '../../../src/perps/signing/ops.ts'
import { compactSignableValue } from '../../../src/perps/signing/typedData.ts'
import {
  parseSignedCommand,
  recoverCreateProxySigner,
  recoverOpSigner,
} from '../../../src/perps/signing/verify.ts'
import { seededRandom } from '../../../src/random.ts'

// Public Hardhat/Anvil dev keys (never funded).
const OWNER_PK = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const OWNER = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
const PROXY_PK = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'
const PROXY = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const NOW = 1_767_000_000_000
const clock: Clock = { now: () => NOW, setTimeout: () => undefined, clearTimeout: () => undefined }
const DUMMY_SIG = `0x${'11'.repeat(64)}1b`

type Json = Record<string, unknown>
const wire = (v: unknown): Json => JSON.parse(JSON.stringify(v)) as Json

const proxy = createCommandSigner({ privateKey: PROXY_PK, clock, salts: seededRandom(21) })
const owner = createCommandSigner({ privateKey: OWNER_PK, clock, salts: seededRandom(22) })

const ops: [string, BuiltOp<PerpsOp>][] = [
  [
    'createOrders',
    buildCreateOrders({
      orders: [
        { iid: 1, buy: true, p: '100.5', qty: '2', tif: 'gtc', po: true },
        {
          iid: 1,
          buy: false,
          qty: '2',
          ro: true,
          coid: 'ab'.repeat(16),
          trigger: { trp: '90', tpsl: 'sl', market: true },
        },
      ],
      grp: 'order',
    }),
  ],
  ['cancelOrders', buildCancelOrders({ oids: [1_234_567_890, 7] })],
  ['cancelAll (all)', buildCancelAll()],
  ['cancelAll (iid)', buildCancelAll({ iid: 4 })],
  ['modifyOrders', buildModifyOrders({ orders: [{ oid: 77, p: '101', qty: '2.5' }] })],
]

describe('recoverOpSigner over JSON bodies as received', () => {
  it.each(ops)('%s: recovers the proxy address', async (_, built) => {
    const body = wire(await proxy.signCommand(built, { exp: NOW + 3_000 }))
    expect(await recoverOpSigner(DEFAULT_PERPS_DOMAIN, body)).toBe(PROXY)
  })

  it('any change to a signed field breaks recovery; exp and unknown fields are not signed', async () => {
    const [, built] = ops[0] as [string, BuiltOp<PerpsOp>]
    const body = wire(await proxy.signCommand(built))
    const args = (o: Json): Json[] => (o.op as Json).args as Json[]
    const tampered: Json[] = [
      { ...body, salt: (body.salt as number) + 1 },
      { ...body, ts: (body.ts as number) + 1 },
      (() => {
        const b = wire(body)
        ;(args(b)[0] as Json).p = '100.6'
        return b
      })(),
      (() => {
        const b = wire(body)
        ;(args(b)[1] as Json).c = 'cd'.repeat(16)
        return b
      })(),
      (() => {
        const b = wire(body)
        ;(b.op as Json).grp = 'position'
        return b
      })(),
    ]
    for (const t of tampered) expect(await recoverOpSigner(DEFAULT_PERPS_DOMAIN, t)).not.toBe(PROXY)
    expect(await recoverOpSigner(perpsDomain({ chainId: 80_002 }), body)).not.toBe(PROXY)
    expect(await recoverOpSigner(DEFAULT_PERPS_DOMAIN, { ...body, exp: NOW + 1, id: 3, req: 'post' })).toBe(
      PROXY,
    )
  })

  it('an oid change in cancelOrders breaks recovery', async () => {
    const body = wire(await proxy.signCommand(buildCancelOrders({ oids: [10, 11] })))
    expect(
      await recoverOpSigner(DEFAULT_PERPS_DOMAIN, { ...body, op: { type: 'cancelOrders', args: [10, 12] } }),
    ).not.toBe(PROXY)
  })

  it('ro:false, market:false and a missing po hash like the client forms (omitted / false)', async () => {
    const built = buildCreateOrders({
      orders: [{ iid: 2, buy: true, qty: '1', tif: 'ioc', trigger: { trp: '5', tpsl: 'tp' } }],
    })
    const body = wire(await proxy.signCommand(built))
    const order = ((body.op as Json).args as Json[])[0] as Json
    const variant = wire(body)
    const vOrder = ((variant.op as Json).args as Json[])[0] as Json
    vOrder.ro = false
    vOrder.tr = { ...(order.tr as Json), market: false }
    delete vOrder.po
    expect(await recoverOpSigner(DEFAULT_PERPS_DOMAIN, variant)).toBe(PROXY)
  })

  it('rejects malformed envelopes and unsupported op types with InputValidationError', async () => {
    const body = wire(await proxy.signCommand(buildCancelOrders({ oids: [1] })))
    const bad: unknown[] = [
      null,
      { ...body, sig: undefined },
      { ...body, sig: `${String(body.sig).slice(0, -2)}00` }, // v must be 27/28
      { ...body, sig: String(body.sig).slice(0, -2) },
      { ...body, salt: -1 },
      { ...body, ts: 1.5 },
      // updateLeverage is now a supported op (official layout); an op the venue has but we do not sign stays unsupported.
      { ...body, op: { type: 'internalTransfer', args: { to: '0x1', amount: '1' } } },
      { ...body, op: { type: 'cancelOrders', args: [1.5] } },
      { ...body, op: { type: 'cancelOrders', args: ['1'] } },
      { ...body, op: { type: 'createOrders', args: [{ iid: '1', buy: true, qty: '1' }] } },
      { ...body, op: { type: 'createOrders', args: [{ iid: 1, buy: true, qty: '1', tif: 'GTC' }] } },
    ]
    for (const b of bad)
      await expect(recoverOpSigner(DEFAULT_PERPS_DOMAIN, b)).rejects.toThrow(InputValidationError)
  })
})

describe('parseSignedCommand round trip (property)', () => {
  const decimal = fc
    .tuple(fc.nat({ max: 99_999 }), fc.option(fc.nat({ max: 9_999 }), { nil: undefined }))
    .map(([i, f]) => (f === undefined ? `${i}` : `${i}.${f}`))
  const orderArb: fc.Arbitrary<CreateOrderInput> = fc.record(
    {
      iid: fc.nat({ max: 4_294_967_295 }),
      buy: fc.boolean(),
      p: decimal,
      qty: decimal,
      tif: fc.constantFrom('gtc' as const, 'ioc' as const, 'fok' as const),
      po: fc.boolean(),
      ro: fc.boolean(),
      coid: fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 32, maxLength: 32 }),
      trigger: fc.record(
        { trp: decimal, tpsl: fc.constantFrom('tp' as const, 'sl' as const), market: fc.boolean() },
        { requiredKeys: ['trp', 'tpsl'] },
      ),
    },
    { requiredKeys: ['iid', 'buy', 'qty'] },
  )

  it('rebuilding from the JSON body gives the same body op and the same compacted positional op', () => {
    fc.assert(
      fc.property(
        fc.array(orderArb, { minLength: 1, maxLength: 4 }),
        fc.option(fc.constantFrom('order' as const, 'position' as const), { nil: undefined }),
        (orders, grp) => {
          const built = buildCreateOrders({ orders, grp })
          const parsed = parseSignedCommand(wire({ op: built.op, sig: DUMMY_SIG, salt: 1, ts: NOW }))
          expect(parsed.built.op).toStrictEqual(built.op)
          expect(compactSignableValue(parsed.built.signedOp)).toStrictEqual(
            compactSignableValue(built.signedOp),
          )
        },
      ),
      { numRuns: 300, seed: 4242 },
    )
  })
})

describe('recoverCreateProxySigner', () => {
  it('recovers the owner from the body; label/code are not signed; expiry and proxy are', async () => {
    const body = wire(await owner.signCreateProxy({ proxy: PROXY, expiry: NOW + 7 * 86_400_000, label: 'x' }))
    expect(await recoverCreateProxySigner(DEFAULT_PERPS_DOMAIN, body)).toBe(OWNER)
    expect(await recoverCreateProxySigner(DEFAULT_PERPS_DOMAIN, { ...body, label: 'y', code: 'Z' })).toBe(
      OWNER,
    )
    const args = (body.op as Json).args as Json
    // Same 20 bytes in another case: same hash.
    const lower = { ...body, op: { type: 'createProxy', args: { ...args, proxy: PROXY.toLowerCase() } } }
    expect(await recoverCreateProxySigner(DEFAULT_PERPS_DOMAIN, lower)).toBe(OWNER)
    const later = {
      ...body,
      op: { type: 'createProxy', args: { ...args, expiry: (args.expiry as number) + 1 } },
    }
    expect(await recoverCreateProxySigner(DEFAULT_PERPS_DOMAIN, later)).not.toBe(OWNER)
    const other = { ...body, op: { type: 'createProxy', args: { ...args, proxy: OWNER } } }
    expect(await recoverCreateProxySigner(DEFAULT_PERPS_DOMAIN, other)).not.toBe(OWNER)
  })

  it('rejects a malformed body', async () => {
    await expect(
      recoverCreateProxySigner(DEFAULT_PERPS_DOMAIN, { op: { type: 'createProxy' } }),
    ).rejects.toThrow(InputValidationError)
  })
})

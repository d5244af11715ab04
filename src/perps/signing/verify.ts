/**
 * Verification of signed bodies as received (for the mock exchange): parse the JSON envelope,
 * rebuild the positional op from the JSON `op` with the same builders the client uses, and recover
 * the signer. Pure apart from viem's async recovery API; no keys involved.
 */
import type { Address, Hex } from 'viem'
import { recoverTypedDataAddress } from 'viem/utils'
import { z } from 'zod'
import { InputValidationError } from '../../errors.ts'
import { isOneOf } from '../../guards.ts'
import type { PerpsDomain } from './domain.ts'
import {
  type BuiltOp,
  buildAutoCancel,
  buildCancelAllUnchecked,
  buildCancelOrdersCoidUnchecked,
  buildCancelOrdersUnchecked,
  buildCreateOrdersUnchecked,
  buildModifyOrdersUnchecked,
  buildUpdateLeverageUnchecked,
  buildUpdateMarginUnchecked,
  type CreateOrderInput,
  type PerpsOp,
} from './ops.ts'
import { createProxyTypedData, opTypedData, type Stamp } from './typedData.ts'

/** 65-byte r‖s‖v with v = 27/28, as the official client serializes it. */
const SigSchema = z
  .string()
  .regex(/^0x[0-9a-fA-F]{128}(1b|1c|1B|1C)$/, 'sig must be 0x + 130 hex chars with v = 1b|1c')
  .transform((s) => s as Hex)
/** JSON integers that survive JSON.parse exactly (and so encode as msgpack integers). */
const UIntSchema = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER)

const TriggerBodySchema = z.object({
  tpsl: z.enum(['tp', 'sl']),
  trp: z.string(),
  market: z.boolean().optional(),
})

const OrderBodySchema = z.object({
  iid: UIntSchema,
  buy: z.boolean(),
  po: z.boolean().optional(),
  qty: z.string(),
  tif: z.enum(['gtc', 'ioc', 'fok']).optional(),
  ro: z.boolean().optional(),
  p: z.string().optional(),
  c: z.string().optional(),
  tr: TriggerBodySchema.optional(),
})

const BodyOpSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('createOrders'),
    args: z.array(OrderBodySchema),
    grp: z.enum(['order', 'position']).optional(),
  }),
  z.object({ type: z.literal('cancelOrders'), args: z.array(UIntSchema) }),
  z.object({ type: z.literal('cancelAll'), args: z.object({ iid: UIntSchema.optional() }) }),
  z.object({
    type: z.literal('modifyOrders'),
    args: z.array(z.object({ oid: UIntSchema, p: z.string(), qty: z.string() })),
  }),
  z.object({ type: z.literal('autoCancel'), args: z.object({ time: UIntSchema }) }),
  z.object({ type: z.literal('cancelOrdersCOID'), args: z.array(z.string()) }),
  z.object({
    type: z.literal('updateLeverage'),
    args: z.object({ cross: z.boolean(), iid: UIntSchema, lev: UIntSchema }),
  }),
  // The official body `{amt, iid}`; an `amount` key (our body before issue 35) is refused.
  z.object({ type: z.literal('updateMargin'), args: z.object({ amt: z.string(), iid: UIntSchema }) }),
])

const EnvelopeSchema = z.looseObject({
  op: z.looseObject({ type: z.string() }),
  sig: SigSchema,
  salt: UIntSchema,
  ts: UIntSchema,
  exp: UIntSchema.optional(),
})

const CreateProxyBodySchema = z.looseObject({
  op: z.object({
    type: z.literal('createProxy'),
    args: z.object({
      owner: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
      proxy: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
      expiry: UIntSchema,
    }),
  }),
  sig: SigSchema,
  salt: UIntSchema,
  ts: UIntSchema,
  label: z.string().optional(),
  code: z.string().optional(),
})

export const SUPPORTED_OP_TYPES = [
  'createOrders',
  'cancelOrders',
  'cancelAll',
  'modifyOrders',
  'autoCancel',
  'cancelOrdersCOID',
  'updateLeverage',
  'updateMargin',
] as const

export interface ParsedSignedCommand {
  built: BuiltOp<PerpsOp>
  sig: Hex
  stamp: Stamp
  exp: number | undefined
}

export type ParsedCreateProxy = z.infer<typeof CreateProxyBodySchema>

/**
 * Parses a signed-op body and rebuilds its positional op.
 * @throws {@link InputValidationError} for a malformed envelope or an unsupported op type.
 */
export function parseSignedCommand(body: unknown): ParsedSignedCommand {
  const env = EnvelopeSchema.safeParse(body)
  if (!env.success) throw malformed('malformed signed command', env.error)
  const type = env.data.op.type
  if (!isOneOf(SUPPORTED_OP_TYPES, type)) {
    throw new InputValidationError(`unsupported op type: ${type}`)
  }
  const op = BodyOpSchema.safeParse(env.data.op)
  if (!op.success) throw malformed(`malformed ${type} op`, op.error)
  return {
    built: signedOpFromBodyOp(op.data),
    sig: env.data.sig,
    stamp: { salt: env.data.salt, ts: env.data.ts },
    exp: env.data.exp,
  }
}

/**
 * Recovers the address that signed a command body (`{op, sig, salt, ts, exp?}`) under `domain`.
 * A wrong signer, domain or any altered signed field yields a different address.
 * @throws {@link InputValidationError} when the body cannot be parsed.
 */
export async function recoverOpSigner(domain: PerpsDomain, body: unknown): Promise<Address> {
  const parsed = parseSignedCommand(body)
  return recoverTypedDataAddress({
    ...opTypedData(domain, parsed.built.signedOp, parsed.stamp),
    signature: parsed.sig,
  })
}

/**
 * Parses a createProxy body (`{op:{type:"createProxy", args:{owner, proxy, expiry}}, sig, salt, ts, label?, code?}`).
 * @throws {@link InputValidationError}
 */
export function parseCreateProxyBody(body: unknown): ParsedCreateProxy {
  const parsed = CreateProxyBodySchema.safeParse(body)
  if (!parsed.success) throw malformed('malformed createProxy body', parsed.error)
  return parsed.data
}

/**
 * Recovers the address that signed a createProxy body; the venue requires it to equal `args.owner`.
 * @throws {@link InputValidationError} when the body cannot be parsed.
 */
export async function recoverCreateProxySigner(domain: PerpsDomain, body: unknown): Promise<Address> {
  const parsed = parseCreateProxyBody(body)
  return recoverTypedDataAddress({
    ...createProxyTypedData(
      domain,
      { proxy: parsed.op.args.proxy, expiry: parsed.op.args.expiry },
      { salt: parsed.salt, ts: parsed.ts },
    ),
    signature: parsed.sig,
  })
}

function signedOpFromBodyOp(op: z.infer<typeof BodyOpSchema>): BuiltOp<PerpsOp> {
  switch (op.type) {
    case 'createOrders':
      return buildCreateOrdersUnchecked({
        orders: op.args.map(
          (o): CreateOrderInput => ({
            iid: o.iid,
            buy: o.buy,
            p: o.p,
            qty: o.qty,
            tif: o.tif,
            po: o.po,
            ro: o.ro,
            coid: o.c,
            trigger: o.tr === undefined ? undefined : { trp: o.tr.trp, tpsl: o.tr.tpsl, market: o.tr.market },
          }),
        ),
        grp: op.grp,
      })
    case 'cancelOrders':
      return buildCancelOrdersUnchecked({ oids: op.args })
    case 'cancelAll':
      return buildCancelAllUnchecked({ iid: op.args.iid })
    case 'modifyOrders':
      return buildModifyOrdersUnchecked({ orders: op.args })
    case 'autoCancel':
      return buildAutoCancel({ time: op.args.time })
    case 'cancelOrdersCOID':
      return buildCancelOrdersCoidUnchecked({ coids: op.args })
    case 'updateLeverage':
      return buildUpdateLeverageUnchecked(op.args)
    case 'updateMargin':
      return buildUpdateMarginUnchecked({ iid: op.args.iid, amount: op.args.amt })
  }
}

function malformed(message: string, error: z.ZodError): InputValidationError {
  return new InputValidationError(message, {
    details: error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`),
  })
}

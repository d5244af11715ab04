/** The batcher tests' fakes: a recording send, a pass-through gate, order values and a set-up. */
import { vi } from 'vitest'
import {
  type Batcher,
  type BatcherOptions,
  type BatchSend,
  type BatchType,
  createBatcher,
} from '../../../src/bot/orders/batcher.ts'
import type {
  CancelResult,
  CreateOrderAck,
  CreateOrderInput,
  ModifyOrderInput,
  ModifyResult,
  Order,
} from '../../../src/perps/schemas/orders.ts'
import type { WeightJob, WeightLimiter } from '../../../src/perps/throttle/weightLimiter.ts'
import { type LegacySendOptions, legacyBatchSend } from '../../helpers/admission.ts'
import { ManualClock } from '../limiter/helpers.ts'

// ---------------------------------------------------------------------------------------------------
// Fakes

export interface SendCall {
  type: BatchType
  items: readonly (ModifyOrderInput | CreateOrderInput | number)[]
  signal: AbortSignal
}
export type Responder = (call: SendCall) => Promise<readonly unknown[]> | readonly unknown[]

export function order(m: ModifyOrderInput, iid = 1): Order {
  return {
    oid: m.oid,
    iid,
    buy: true,
    p: m.p,
    qty: m.qty,
    tif: 'gtc',
    po: true,
    ro: false,
    rest: m.qty,
    fill: '0',
    cts: 1,
    uts: 2,
    status: 'open',
  }
}

/** Answers every item `ok`, echoing what was sent. */
export const okResponder: Responder = (call) =>
  call.items.map((item, i) => {
    if (call.type === 'modifyOrders') return { status: 'ok', order: order(item as ModifyOrderInput) }
    if (call.type === 'cancelOrders') return { status: 'ok', oid: item as number }
    return { status: 'ok', oid: 10_000 + i }
  })

/** The venue end of a send: records what goes on the wire and answers it. */
export type RawSend = (
  type: BatchType,
  items: readonly (ModifyOrderInput | CreateOrderInput | number)[],
  options: { signal: AbortSignal },
) => Promise<readonly unknown[]>

export function fakeSend(responder: Responder = okResponder): {
  send: RawSend
  calls: SendCall[]
  log: string[]
} {
  const calls: SendCall[] = []
  const log: string[] = []
  const send: RawSend = async (type, items, { signal }) => {
    const call: SendCall = { type, items: [...items], signal }
    calls.push(call)
    log.push(`send ${type} ${items.length}`)
    return await responder(call)
  }
  return { send, calls, log }
}

/**
 * What the perps client does with a batch: passes its request gate (the limiter) once, as one job with
 * the batch's endpoint, n and priority; hands the admission back (here: `onAdmitted`, bridged); then signs and sends.
 */
export function viaGate(limiter: Pick<WeightLimiter, 'schedule'>, raw: RawSend): BatchSend {
  const one =
    <I extends ModifyOrderInput | CreateOrderInput | number, R>(type: BatchType) =>
    (items: readonly I[], o: LegacySendOptions): Promise<readonly R[]> =>
      limiter.schedule({ endpoint: type, n: items.length, priority: o.priority }, async () => {
        await o.onAdmitted()
        return (await raw(type, items, { signal: o.signal })) as readonly R[]
      })
  return legacyBatchSend({
    modifyOrders: one<ModifyOrderInput, ModifyResult>('modifyOrders'),
    createOrders: one<CreateOrderInput, CreateOrderAck>('createOrders'),
    cancelOrders: one<number, CancelResult>('cancelOrders'),
  })
}

/** Runs jobs at once, recording them. */
export function passThroughLimiter(): { limiter: Pick<WeightLimiter, 'schedule'>; jobs: WeightJob[] } {
  const jobs: WeightJob[] = []
  return {
    jobs,
    limiter: {
      schedule: (job, fn) => {
        jobs.push(job)
        return fn()
      },
    },
  }
}

export { deferred } from '../../helpers/deferred.ts'

export const modify = (oid: number, p = '100', iid = 1, priority?: 'risk' | 'quote') =>
  ({ type: 'modifyOrders', iid, order: { oid, p, qty: '1' }, ...(priority ? { priority } : {}) }) as const
export const cancel = (oid: number, iid = 1) => ({ type: 'cancelOrders', iid, oid }) as const
export const create = (iid: number, extra: Partial<CreateOrderInput> = {}) =>
  ({ type: 'createOrders', order: { iid, buy: true, qty: '1', p: '10', tif: 'gtc', ...extra } }) as const

export function setup(
  overrides: Partial<BatcherOptions> = {},
  responder?: Responder,
): {
  b: Batcher
  clock: ManualClock
  calls: SendCall[]
  log: string[]
  jobs: WeightJob[]
  reconcile: ReturnType<typeof vi.fn>
} {
  const clock = new ManualClock()
  const { send, calls, log } = fakeSend(responder)
  const { limiter, jobs } = passThroughLimiter()
  const reconcile = vi.fn(async (iids: readonly number[]) => {
    log.push(`reconcile ${iids.join(',')}`)
  })
  const b = createBatcher({ send: viaGate(limiter, send), reconcile, clock, windowMs: 10, ...overrides })
  return { b, clock, calls, log, jobs, reconcile }
}

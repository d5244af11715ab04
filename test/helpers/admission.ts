/**
 * Test fakes of the request gate and the batcher's send written as wrappers (`run(request, send)`,
 * a send that awaits `onAdmitted`), bridged to the admission values the client and the batcher use.
 * Production code has no such bridge: the gate answers `admit` with a value and calls nothing back.
 */

import type { AdmittedBatch, BatchSend, SendOptions } from '../../src/bot/orders/batching/batchTypes.ts'
import type { Admission, GatedRequest, RequestGate } from '../../src/perps/throttle/requestGate.ts'

/** Bridges a wrapper `run(send)`: admitted when the wrapper calls `send`, which then takes the outcome. */
function bridge(run: (send: () => Promise<unknown>) => Promise<unknown>): Promise<Admission> {
  return new Promise((resolve, reject) => {
    let admitted = false
    let outer: Promise<unknown> = Promise.resolve()
    outer = run(
      () =>
        new Promise<unknown>((done, fail) => {
          admitted = true
          resolve({
            sending: () => undefined,
            settle: async (e?: unknown) => {
              if (e === undefined) done(undefined)
              else fail(e)
              await outer.catch(() => undefined)
            },
            release: () => done(undefined),
          })
        }),
    )
    outer.catch((e: unknown) => {
      if (!admitted) reject(e)
    })
  })
}

/** A gate from a wrapper: admitted when `run` calls its `send`, a rejection before that refuses. */
export function gateOf(
  run: (request: GatedRequest, send: () => Promise<unknown>) => Promise<unknown>,
): RequestGate {
  return { admit: (request) => bridge((send) => run(request, send)) }
}

/** A wrapper's way to use a gate (`run(request, send)`), as a test that drives a gate directly. */
export async function runThrough<T>(
  gate: RequestGate,
  request: GatedRequest,
  send: () => Promise<T>,
): Promise<T> {
  const admission = await gate.admit(request)
  try {
    admission.sending()
  } catch (e) {
    admission.release()
    throw e
  }
  try {
    const out = await send()
    await admission.settle()
    return out
  } catch (e) {
    await admission.settle(e)
    throw e
  }
}

/** What a fake batch send (written before admissions were values) is handed: the options plus `onAdmitted`. */
export type LegacySendOptions = SendOptions & { onAdmitted: () => Promise<void> }

type LegacyOne<I, R> = (items: readonly I[], o: LegacySendOptions) => Promise<readonly R[]>
export interface LegacyBatchSend {
  modifyOrders: LegacyOne<Parameters<BatchSend['modifyOrders']>[0][number], ResultOf<'modifyOrders'>>
  createOrders: LegacyOne<Parameters<BatchSend['createOrders']>[0][number], ResultOf<'createOrders'>>
  cancelOrders: LegacyOne<number, ResultOf<'cancelOrders'>>
}
type ResultOf<K extends keyof BatchSend> =
  Awaited<ReturnType<BatchSend[K]>> extends AdmittedBatch<infer R> ? R : never

/**
 * A batch send from a fake that calls `onAdmitted` (admission) before it answers: the batch is
 * admitted when the fake calls it (or when the fake answers without calling it), and the fake goes
 * on when the batcher sends. A release makes `onAdmitted` reject (the fake's call then fails, unseen).
 */
export function legacyBatchSend(fake: Partial<LegacyBatchSend>): BatchSend {
  const one =
    <I, R>(f: LegacyOne<I, R> | undefined) =>
    (items: readonly I[], o: SendOptions): Promise<AdmittedBatch<R>> =>
      new Promise((resolve, reject) => {
        let admitted = false
        let go: () => void = () => undefined
        let stop: (e: unknown) => void = () => undefined
        const released = new Promise<void>((res, rej) => {
          go = res
          stop = rej
        })
        released.catch(() => undefined)
        let answer: Promise<readonly R[]> = Promise.resolve([])
        const handle: AdmittedBatch<R> = {
          send: () => {
            go()
            return answer
          },
          release: () => stop(new Error('released unsent')),
        }
        answer = (f ?? (async () => []))(items, {
          ...o,
          onAdmitted: () => {
            admitted = true
            resolve(handle)
            return released
          },
        })
        answer.then(
          () => {
            if (!admitted) {
              admitted = true
              resolve(handle)
            }
          },
          (e: unknown) => {
            if (!admitted) reject(e)
          },
        )
      })
  return {
    modifyOrders: one(fake.modifyOrders),
    createOrders: one(fake.createOrders),
    cancelOrders: one(fake.cancelOrders),
  }
}

/**
 * The pieces the bot uses in fleet mode, alone: the lease fence on the request path, orders by
 * epoch, the fleet gauges with the account label, and coids on creates through the order gateway.
 */

import { Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { createBatcher } from '../../src/bot/orders/batcher.ts'
import type { BatchSend } from '../../src/bot/orders/batching/batchTypes.ts'
import { createOrderGateway } from '../../src/bot/orders/orderGateway.ts'
import { cancelByEpoch, highestEpoch, oidsByEpoch } from '../../src/fleet/epochOrders.ts'
import { registerFleetMetrics } from '../../src/fleet/fleetMetrics.ts'
import { LeaseLostError, withLeaseFence } from '../../src/fleet/leaseFence.ts'
import type { GatedRequest } from '../../src/perps/client/context.ts'
import { createClientOrderIds, orderTagFor, parseClientOrderId } from '../../src/perps/orderTag.ts'
import type { CreateOrderInput } from '../../src/perps/schemas/orders.ts'
import { OPEN_GATE } from '../../src/perps/throttle/requestGate.ts'
import type { PerpsEndpoint } from '../../src/perps/weights.ts'
import { gateOf, legacyBatchSend, runThrough } from '../helpers/admission.ts'

const req = (endpoint: PerpsEndpoint, kind: 'read' | 'command'): GatedRequest => ({
  endpoint,
  kind,
  input: { n: 1 },
  requestWeight: 1,
  actionWeight: kind === 'command' ? 1 : 0,
})

describe('lease fence', () => {
  it('commands only while the lease allows; after it, reads and cancels by id still go', async () => {
    let ok = true
    const sent: string[] = []
    const gate = withLeaseFence(OPEN_GATE, { account: 'a', canWrite: () => ok })
    const go = (r: GatedRequest) => runThrough(gate, r, async () => sent.push(r.endpoint))
    await go(req('createOrders', 'command'))
    ok = false
    await expect(go(req('createOrders', 'command'))).rejects.toThrow(LeaseLostError)
    await expect(go(req('cancelAll', 'command'))).rejects.toThrow(
      /no longer holds the fleet lease of account a/,
    )
    await expect(go(req('setAutoCancel', 'command'))).rejects.toThrow(LeaseLostError)
    await go(req('cancelOrders', 'command'))
    await go(req('getOpenOrders', 'read'))
    expect(sent).toEqual(['createOrders', 'cancelOrders', 'getOpenOrders'])
  })
  it('checks again right before the send (the wait for admission may outlast the lease)', async () => {
    let ok = true
    const gate = withLeaseFence(
      gateOf(async (_r, send) => {
        ok = false // the lease lapsed while this request waited in the limiter
        return send()
      }),
      { account: 'a', canWrite: () => ok },
    )
    await expect(runThrough(gate, req('createOrders', 'command'), async () => 'sent')).rejects.toThrow(
      LeaseLostError,
    )
  })
})

describe('orders by epoch', () => {
  const tag = orderTagFor('perpbot')
  const other = orderTagFor('someone-else')
  const coid = (t: string, epoch: number) => createClientOrderIds({ tag: t, epoch, startMs: 1 }).next()
  const orders = [
    { oid: 1, coid: coid(tag, 5) },
    { oid: 2, coid: coid(tag, 7) },
    { oid: 3, coid: coid(other, 1) },
    { oid: 4, coid: undefined },
    { oid: 5, coid: coid(tag, 3) },
  ]
  it('picks our tag only, by epoch; the highest epoch floors the next', () => {
    expect(oidsByEpoch(orders, tag, (e) => e < 7)).toEqual([1, 5])
    expect(oidsByEpoch(orders, tag, (e) => e === 7)).toEqual([2])
    expect(highestEpoch(orders, tag)).toBe(7)
    expect(highestEpoch([], tag)).toBe(0)
  })
  it('cancels by id at risk priority, in chunks', async () => {
    const many = Array.from({ length: 120 }, (_, i) => ({ oid: i + 1, coid: coid(tag, 1) }))
    const calls: { oids: readonly number[]; priority: string | undefined }[] = []
    const perps = {
      getOpenOrders: async () =>
        many.map((o) => ({
          ...o,
          iid: 1,
          buy: true,
          p: '1',
          qty: '1',
          tif: 'gtc',
          po: true,
          ro: false,
          rest: '1',
          fill: '0',
          cts: 0,
          uts: 0,
          status: 'open',
        })),
      cancelOrders: async (oids: readonly number[], o?: { priority?: string | undefined }) => {
        calls.push({ oids, priority: o?.priority })
        return []
      },
    }
    expect(await cancelByEpoch(perps, tag, (e) => e < 2)).toBe(120)
    expect(calls.map((c) => c.oids.length)).toEqual([50, 50, 20])
    expect(calls.every((c) => c.priority === 'risk')).toBe(true)
  })
})

describe('fleet metrics', () => {
  it('lease and budget gauges, the account on every series', async () => {
    const registry = new Registry()
    registerFleetMetrics(registry, {
      account: 'acct-a',
      egressId: 'nat-1',
      holderId: 'perpbot-0.1',
      lease: () => ({ state: 'held', epoch: 1795000000, token: '1795000000:perpbot-0.1' }),
      msLeft: () => 4_500,
      budget: () => ({
        redisUp: true,
        admitted: 10,
        admittedWeight: 20,
        refused: 2,
        redisErrors: 0,
        scriptReloads: 0,
        windowWeight: 300,
        budget: 900,
        limits: { halt: 900, risk: 855, read: 810, quote: 810 },
        waiting: 1,
        blocked: false,
        generations: 0,
        restored: 0,
        ownWindowWeight: 7,
        restamped: 0,
      }),
    })
    const text = await registry.metrics()
    expect(text).toContain('perpbot_fleet_lease_held{holder="perpbot-0.1",state="held",account="acct-a"} 1')
    expect(text).toContain('perpbot_fleet_lease_epoch{account="acct-a"} 1795000000')
    expect(text).toContain('perpbot_fleet_lease_deadline_seconds{account="acct-a"} 4.5')
    expect(text).toContain('perpbot_fleet_budget_window_weight{egress="nat-1",account="acct-a"} 300')
    expect(text).toContain('perpbot_fleet_budget_weight{egress="nat-1",account="acct-a"} 900')
  })
})

describe('order gateway with client order ids', () => {
  it('a create without a coid gets the next (tag | epoch | sequence); one with a coid keeps it', async () => {
    const created: CreateOrderInput[] = []
    const send: BatchSend = legacyBatchSend({
      createOrders: async (items) => {
        created.push(...items)
        return items.map((_, i) => ({ status: 'ok' as const, oid: i + 1 }))
      },
    })
    const tag = orderTagFor('perpbot')
    const gateway = createOrderGateway({
      batcher: createBatcher({ send, reconcile: async () => undefined, windowMs: 0 }),
      perps: { cancelAll: async () => ({ status: 'ok' }), cancelOrders: async () => [] },
      orderIds: createClientOrderIds({ tag, epoch: 9, startMs: 1_000 }),
    })
    const order = { iid: 1, buy: true, p: '1', qty: '1', tif: 'gtc' as const, po: true }
    await gateway.submitPlan({
      instrumentId: 1,
      priority: 'quote',
      plan: { modify: [], create: [order, { ...order, coid: 'ab'.repeat(16) }], cancel: [] },
    })
    expect(parseClientOrderId(created[0]?.coid)).toMatchObject({ tag, epoch: 9 })
    expect(created[1]?.coid).toBe('ab'.repeat(16))
  })
})

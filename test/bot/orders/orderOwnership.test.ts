import { describe, expect, it } from 'vitest'
import { createOrderOwnership } from '../../../src/bot/orders/orderOwnership.ts'
import { fleetDeadMan } from '../../../src/fleet/fleetPart.ts'
import { orderTagFor, parseClientOrderId } from '../../../src/perps/orderTag.ts'
import type { Order } from '../../../src/perps/schemas/orders.ts'
import { Settings } from '../../../src/settings/schema.ts'

const settings = Settings.parse({ instruments: [{ symbol: 'X', strategy: 'index-peg' }] })
const clock = { now: () => 1_700_000_000_000 }
const order = (coid: string | undefined): Order => ({ coid }) as Order

describe('order ownership', () => {
  it('tags our ids with settings.orders.tag and the fleet epoch; isOurs reads the tag (leave)', () => {
    const own = createOrderOwnership({
      orders: settings.orders,
      clock,
      fleet: { epoch: 7, canWrite: () => true },
    })
    expect(own.tag).toBe(orderTagFor(settings.orders.tag))
    const coid = own.clientOrderIds().next()
    expect(parseClientOrderId(coid)).toMatchObject({ tag: own.tag, epoch: 7 })
    expect(own.isOurs?.({ coid })).toBe(true)
    expect(own.isOurs?.({ coid: undefined })).toBe(false)
    expect(own.isOurs?.({ coid: `0x${'ab'.repeat(16)}` })).toBe(false)
  })

  it('adopt: every order is ours (no isOurs); without a fleet the epoch is 0 and the exit is not narrowed', () => {
    const own = createOrderOwnership({ orders: { ...settings.orders, foreign: 'adopt' }, clock })
    expect(own.isOurs).toBeUndefined()
    expect(parseClientOrderId(own.clientOrderIds().next())?.epoch).toBe(0)
    expect(own.exitOnly()).toBeUndefined()
  })

  it('a fenced fleet process narrows the exit to its own epoch, decided at the exit', () => {
    let writable = true
    const fleet = { epoch: 3, canWrite: () => writable }
    const own = createOrderOwnership({ orders: settings.orders, clock, fleet })
    expect(own.exitOnly()).toBeUndefined()
    writable = false
    const only = own.exitOnly()
    const mine = createOrderOwnership({ orders: settings.orders, clock, fleet }).clientOrderIds().next()
    const older = createOrderOwnership({
      orders: settings.orders,
      clock,
      fleet: { epoch: 2, canWrite: () => true },
    })
      .clientOrderIds()
      .next()
    expect(only?.(order(mine))).toBe(true)
    expect(only?.(order(older))).toBe(false)
  })
})

describe('the fleet dead-man settings', () => {
  it('keep the deadline within the lease TTL, never below the venue 10 s, refresh within a third', () => {
    const d = settings.ops.deadManSwitch
    const short = fleetDeadMan(settings, 4_000).ops.deadManSwitch
    expect(short.deadlineMs).toBe(Math.min(d.deadlineMs, 10_000))
    expect(short.refreshMs).toBe(Math.min(d.refreshMs, Math.floor(short.deadlineMs / 3)))
    const long = fleetDeadMan(settings, 10 * d.deadlineMs).ops.deadManSwitch
    expect(long).toEqual(
      d.refreshMs <= Math.floor(d.deadlineMs / 3) ? d : { ...d, refreshMs: Math.floor(d.deadlineMs / 3) },
    )
  })
})

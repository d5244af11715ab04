/**
 * Issue 35, point 6: the venue's notifications (bindings 0.10.0 `PerpsNotificationSchema`) become
 * alerts with their details; the per-fill position notifications are not alerts; a type this version
 * does not know still reaches the operator from its message fields.
 */
import { describe, expect, it } from 'vitest'
import { notificationAlert } from '../../../src/alerts/venueAlerts.ts'
import {
  routePush,
  STREAM_ROUTES,
  type StreamRouteTargets,
} from '../../../src/bot/inputs/streams/streamRoutes.ts'
import { NotificationsPage, NotificationsPush } from '../../../src/perps/schemas/notifications.ts'

const ID = '7b1c3f0e-3a5e-4c1e-9a43-0d6c1c1f2a11'
const one = (data: unknown) => {
  const [n] = NotificationsPush.parse(data)
  if (n === undefined) throw new Error('no notification')
  return n
}

describe('venue notifications as alerts', () => {
  it('an isolated liquidation warning: critical, its prices in the text and the details', () => {
    const n = one({
      id: ID,
      type: 'liquidation_warning',
      margin_type: 'isolated',
      instrument_id: 3,
      mark_price: '101.5',
      liq_price: '99.8',
    })
    const a = notificationAlert(n, 5)
    expect(a).toMatchObject({ key: `venue-notification:${ID}`, severity: 'critical', at: 5 })
    expect(a.message).toBe('isolated liquidation warning on instrument 3: mark 101.5, liquidation price 99.8')
    expect(a.details).toMatchObject({ instrument_id: 3, mark_price: '101.5', liq_price: '99.8' })
  })

  it('cross warning, liquidation, closed position and a cancelled limit order: each in words', () => {
    expect(
      one({
        id: ID,
        type: 'liquidation_warning',
        margin_type: 'cross',
        instrument_id: null,
        mark_price: '5',
        affected_instruments: [1, 2],
      }).text,
    ).toBe('cross-margin liquidation warning: mark 5, instruments 1, 2')
    const liq = one({
      id: ID,
      type: 'position_liquidated',
      instrument_id: 1,
      side: 'long',
      size_closed: '0.5',
      pnl: null,
      margin_type: 'cross',
      via_backstop: true,
    })
    expect(liq).toMatchObject({ severity: 'critical', alert: true })
    expect(liq.text).toBe(
      'position liquidated on instrument 1: long 0.5 closed (cross margin, via the backstop), PnL unknown USD',
    )
    expect(
      one({
        id: ID,
        type: 'position_closed',
        instrument_id: 2,
        side: 'short',
        size: '1',
        avg_price: '3000',
        pnl: '-12.5',
      }),
    ).toMatchObject({
      severity: 'info',
      alert: true,
      text: 'position closed on instrument 2: short 1 at 3000 average, PnL -12.5 USD',
    })
    expect(
      one({ id: ID, type: 'limit_order_canceled', instrument_id: 2, side: 'long', size: '1', price: '' }),
    ).toMatchObject({
      severity: 'warning',
      text: 'the venue cancelled a limit order on instrument 2: long 1 at unknown',
    })
  })

  it('per-fill position notifications are read but not routed to the alerts', () => {
    const opened = {
      id: ID,
      type: 'position_increased',
      instrument_id: 1,
      side: 'long',
      size: '0.3',
      avg_price: '50000',
      leverage: 10,
      order_type: 'limit',
    }
    expect(one(opened)).toMatchObject({ alert: false, kind: 'position_increased' })
    const notified: string[] = []
    const push = { kind: 'notifications' as const, ch: 'notifications', iid: undefined, ts: 1, sq: 1 }
    // Only `notify` is read by this route.
    const targets = {
      notify: (n: { kind: string }) => void notified.push(n.kind),
    } as unknown as StreamRouteTargets
    routePush(STREAM_ROUTES, { ...push, data: NotificationsPush.parse(opened) }, targets)
    expect(notified).toEqual([])
    routePush(
      STREAM_ROUTES,
      { ...push, data: NotificationsPush.parse({ ...opened, type: 'position_closed', pnl: '1' }) },
      targets,
    )
    expect(notified).toEqual(['position_closed'])
  })

  it('REST notifications read the same items (unknown kinds from their message fields)', () => {
    const page = NotificationsPage.parse({
      items: [
        {
          notification: {
            id: ID,
            type: 'position_reduced',
            instrument_id: 1,
            side: 'long',
            size: '0.1',
            avg_price: '1',
            leverage: 2,
          },
          read_at: null,
          ts: 9,
        },
        {
          notification: { id: ID, type: 'maintenance', message: 'venue maintenance at 02:00 UTC' },
          read_at: 3,
          ts: 8,
        },
      ],
      unread: 1,
      durable_source_seq: 4,
      has_more: false,
      next_cursor: null,
    })
    expect(page.items.map((i) => [i.notification.kind, i.notification.alert, i.notification.text])).toEqual([
      ['position_reduced', false, 'position reduced on instrument 1: long 0.1 at 1 average, 2x'],
      ['maintenance', true, 'venue maintenance at 02:00 UTC'],
    ])
  })
})

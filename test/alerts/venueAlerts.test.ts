import { describe, expect, it } from 'vitest'
import type { Alert } from '../../src/alerts/alert.ts'
import {
  createStreamAuthAlerts,
  droppedRowsObserver,
  notificationAlert,
} from '../../src/alerts/venueAlerts.ts'
import { NotificationsPush } from '../../src/perps/stream/pushSchemas.ts'

function sink() {
  const sent: Alert[] = []
  return { sent, send: (a: Alert) => void sent.push(a) }
}

describe('stream auth alerts', () => {
  it('a definite refusal is one critical alert, resolved once auth succeeds; transient refusals say nothing', () => {
    const s = sink()
    const onAuth = createStreamAuthAlerts({ alerts: s, now: () => 5 })
    onAuth({ ok: false, definite: false, code: 'unavailable', refusals: 1 })
    expect(s.sent).toEqual([])
    onAuth({ ok: false, definite: true, code: 'invalid_credentials', refusals: 2 })
    onAuth({ ok: false, definite: true, code: 'invalid_credentials', refusals: 3 })
    expect(s.sent).toHaveLength(1)
    expect(s.sent[0]).toMatchObject({ key: 'stream-auth', severity: 'critical' })
    expect(s.sent[0]?.message).toContain('REST keeps working')
    onAuth({ ok: true, definite: false, code: undefined, refusals: 0 })
    expect(s.sent[1]).toMatchObject({ key: 'stream-auth', resolved: true })
    // Accepted with nothing open: no message.
    onAuth({ ok: true, definite: false, code: undefined, refusals: 0 })
    expect(s.sent).toHaveLength(2)
  })
})

describe('venue notifications', () => {
  it('takes the severity and text the venue sent', () => {
    const [n] = NotificationsPush.parse({
      id: 7,
      level: 'warning',
      title: 'Maintenance',
      message: 'in 10 min',
    })
    if (n === undefined) throw new Error('no notification')
    expect(notificationAlert(n, 1)).toMatchObject({
      key: 'venue-notification:7',
      severity: 'warning',
      message: 'Maintenance: in 10 min',
      at: 1,
    })
  })
})

describe('unreadable rows', () => {
  it('one warning per endpoint per interval, counting the rows dropped in between', () => {
    const s = sink()
    let now = 0
    const o = droppedRowsObserver({ alerts: s, now: () => now, intervalMs: 60_000 })
    o.droppedItems('getFills', ['[0.price]: not a decimal'])
    o.droppedItems('getFills', ['[3.price]: not a decimal', '[4.qty]: empty'])
    o.droppedItems('getOpenOrders', ['[1.price]: not a decimal'])
    expect(s.sent.map((a) => a.key)).toEqual(['unreadable-rows:getFills', 'unreadable-rows:getOpenOrders'])
    expect(s.sent[0]).toMatchObject({ severity: 'warning', title: 'unreadable rows' })
    now = 60_000
    o.droppedItems('getFills', ['[9.price]: not a decimal'])
    expect(s.sent).toHaveLength(3)
    expect(s.sent[2]?.details).toMatchObject({ rows: 3 })
  })
})

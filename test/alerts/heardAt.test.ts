import { describe, expect, it } from 'vitest'
import { type Alert, heardAt } from '../../src/alerts/alert.ts'

const alert = (severity: Alert['severity'], resolved?: boolean): Alert => ({
  key: 'margin',
  severity,
  title: 'Margin',
  message: 'margin ratio 0.8',
  at: 0,
  ...(resolved === undefined ? {} : { resolved }),
})

describe('heardAt: one severity filter for every subscriber (webhook, Telegram)', () => {
  it('hears alerts at or above the minimum, not below', () => {
    expect(heardAt(alert('warning'), 'warning')).toBe(true)
    expect(heardAt(alert('critical'), 'warning')).toBe(true)
    expect(heardAt(alert('info'), 'warning')).toBe(false)
    expect(heardAt(alert('warning'), 'critical')).toBe(false)
  })

  it('always hears a resolve: whoever heard the episode open hears it end', () => {
    expect(heardAt(alert('info', true), 'critical')).toBe(true)
    expect(heardAt(alert('warning', true), 'critical')).toBe(true)
    expect(heardAt(alert('info', false), 'warning')).toBe(false)
  })
})

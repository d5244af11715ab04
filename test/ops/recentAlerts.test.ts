import { describe, expect, it } from 'vitest'
import { createRecentAlerts } from '../../src/ops/recentAlerts.ts'

describe('createRecentAlerts', () => {
  it('keeps the newest alerts up to its capacity, oldest first', () => {
    const recent = createRecentAlerts(2)
    for (const key of ['a', 'b', 'c']) recent.send({ key, severity: 'info', title: key, message: key, at: 0 })
    expect(recent.list().map((a) => a.key)).toEqual(['b', 'c'])
  })
})

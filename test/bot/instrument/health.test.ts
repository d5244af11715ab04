import { describe, expect, it } from 'vitest'
import { degradations, healthyInstrument, observe } from '../../../src/bot/instrument/health.ts'

describe('instrument health episodes', () => {
  it('opens one episode after N bad observations in a row and closes it on the first good one', () => {
    let h = healthyInstrument()
    const changes: unknown[] = []
    for (let i = 0; i < 10; i++) {
      const o = observe(h, 'strategy', `boom ${i}`, 1_000 + i, 3)
      if (o.change) changes.push(o.change)
      h = o.health
    }
    expect(changes).toEqual([{ kind: 'degraded', cause: 'strategy', reason: 'boom 2', at: 1_002 }])
    expect(degradations(h)).toEqual([{ cause: 'strategy', since: 1_002, reason: 'boom 2' }])
    const ok = observe(h, 'strategy', undefined, 2_000, 3)
    expect(ok.change).toEqual({ kind: 'recovered', cause: 'strategy', since: 1_002, at: 2_000 })
    expect(degradations(ok.health)).toEqual([])
  })

  it('resets the streak on a good observation before the threshold, without any alert', () => {
    let h = healthyInstrument()
    h = observe(h, 'quotes', 'x', 1, 3).health
    h = observe(h, 'quotes', 'x', 2, 3).health
    const good = observe(h, 'quotes', undefined, 3, 3)
    expect(good.change).toBeUndefined()
    expect(good.health.quotes.streak).toBe(0)
    expect(observe(good.health, 'quotes', 'x', 4, 3).change).toBeUndefined()
  })

  it('keeps causes apart and returns the same object when nothing changes', () => {
    const h = healthyInstrument()
    expect(observe(h, 'index', undefined, 1, 1).health).toBe(h)
    const bad = observe(h, 'index', 'jump', 1, 1)
    expect(bad.change?.kind).toBe('degraded')
    expect(bad.health.strategy).toBe(h.strategy)
    expect(degradations(bad.health).map((d) => d.cause)).toEqual(['index'])
  })
})

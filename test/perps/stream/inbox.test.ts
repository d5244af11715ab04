import { describe, expect, it } from 'vitest'
import { Inbox } from '../../../src/perps/stream/socket/inbox.ts'

/** A scheduler the test turns by hand. */
function manual() {
  const due: (() => void)[] = []
  return {
    schedule: (fn: () => void) => void due.push(fn),
    turn: () => {
      for (const fn of due.splice(0)) fn()
    },
    get booked() {
      return due.length
    },
  }
}

describe('the stream inbox', () => {
  it('handles every frame at once while nothing yields', () => {
    const s = manual()
    const seen: string[] = []
    const inbox = new Inbox<string>((x) => void seen.push(x), s.schedule)
    inbox.push('a')
    inbox.push('b')
    expect(seen).toEqual(['a', 'b'])
    expect(s.booked).toBe(0)
  })

  it('after a yield the frames still to come wait for the next turn, in order', () => {
    const s = manual()
    const seen: string[] = []
    const inbox: Inbox<string> = new Inbox<string>((x) => {
      seen.push(x)
      if (x === 'moved') inbox.yieldNow()
    }, s.schedule)
    for (const x of ['t1', 'moved', 't3', 't4']) inbox.push(x)
    expect(seen).toEqual(['t1', 'moved'])
    expect(inbox.pending).toBe(2)
    inbox.push('t5')
    expect(seen).toEqual(['t1', 'moved'])
    s.turn()
    expect(seen).toEqual(['t1', 'moved', 't3', 't4', 't5'])
    expect(inbox.pending).toBe(0)
    inbox.push('t6')
    expect(seen.at(-1)).toBe('t6')
  })

  it('yields once per burst: the deferred frames are handled together, then the next burst may yield', () => {
    const s = manual()
    const seen: string[] = []
    const inbox: Inbox<string> = new Inbox<string>((x) => {
      seen.push(x)
      if (x.startsWith('moved')) inbox.yieldNow()
    }, s.schedule)
    for (const x of ['moved1', 'a', 'moved2', 'b']) inbox.push(x)
    expect(s.booked).toBe(1)
    s.turn()
    expect(seen).toEqual(['moved1', 'a', 'moved2', 'b'])
    expect(s.booked).toBe(0)
    for (const x of ['moved3', 'c']) inbox.push(x)
    expect(seen.at(-1)).toBe('moved3')
    s.turn()
    expect(seen.at(-1)).toBe('c')
  })

  it('clear drops the frames waiting, and a turn booked before it does nothing', () => {
    const s = manual()
    const seen: string[] = []
    const inbox: Inbox<string> = new Inbox<string>((x) => {
      seen.push(x)
      if (x === 'moved') inbox.yieldNow()
    }, s.schedule)
    for (const x of ['moved', 'old1', 'old2']) inbox.push(x)
    inbox.clear()
    expect(inbox.pending).toBe(0)
    inbox.push('new')
    expect(seen).toEqual(['moved', 'new'])
    s.turn()
    expect(seen).toEqual(['moved', 'new'])
  })
})

import { describe, expect, it } from 'vitest'
import { Inbox, InboxGroup } from '../../../src/perps/stream/socket/inbox.ts'

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

  it('with a catch-up budget, a catch-up yields again after a change once it has handled that many frames', () => {
    const s = manual()
    const seen: string[] = []
    const inbox: Inbox<string> = new Inbox<string>(
      (x) => {
        seen.push(x)
        if (x.startsWith('moved')) inbox.yieldNow()
      },
      s.schedule,
      { catchUpFrames: 2 },
    )
    for (const x of ['moved1', 'a', 'moved2', 'b', 'c', 'moved3', 'd']) inbox.push(x)
    expect(seen).toEqual(['moved1'])
    // The catch-up: 'a' (1 frame) and 'moved2' (2 frames, the budget) handled, then it yields.
    s.turn()
    expect(seen).toEqual(['moved1', 'a', 'moved2'])
    expect(s.booked).toBe(1)
    s.turn()
    expect(seen).toEqual(['moved1', 'a', 'moved2', 'b', 'c', 'moved3'])
    s.turn()
    expect(seen.at(-1)).toBe('d')
    expect(inbox.pending).toBe(0)
    expect(s.booked).toBe(0)
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

  it("in a group, a yield on one socket's inbox defers the frames of every inbox of the group to one turn", () => {
    const s = manual()
    const group = new InboxGroup(s.schedule)
    const seen: string[] = []
    const tickers: Inbox<string> = new Inbox<string>((x) => {
      seen.push(x)
      if (x === 'moved') tickers.yieldNow()
    }, group)
    const bbo = new Inbox<string>((x) => void seen.push(x), group)
    bbo.push('bbo1')
    for (const x of ['t1', 'moved', 't2']) tickers.push(x)
    // The other socket's read in the same poll phase waits for the turn (the order's write) too.
    for (const x of ['bbo2', 'bbo3']) bbo.push(x)
    expect(seen).toEqual(['bbo1', 't1', 'moved'])
    expect(s.booked).toBe(1)
    s.turn()
    expect(seen).toEqual(['bbo1', 't1', 'moved', 't2', 'bbo2', 'bbo3'])
    expect(s.booked).toBe(0)
    bbo.push('bbo4')
    expect(seen.at(-1)).toBe('bbo4')
  })

  it('in a group, the frames deferred are handled at the turn without a second yield, and a cleared inbox does nothing then', () => {
    const s = manual()
    const group = new InboxGroup(s.schedule)
    const seen: string[] = []
    const yielding = (name: string) => {
      const inbox: Inbox<string> = new Inbox<string>((x) => {
        seen.push(`${name}:${x}`)
        if (x.startsWith('moved')) inbox.yieldNow()
      }, group)
      return inbox
    }
    const a = yielding('a')
    const b = yielding('b')
    const c = yielding('c')
    for (const x of ['moved1', 'x']) a.push(x)
    for (const x of ['moved2', 'y']) b.push(x)
    c.push('z')
    c.clear()
    expect(seen).toEqual(['a:moved1'])
    s.turn()
    expect(seen).toEqual(['a:moved1', 'a:x', 'b:moved2', 'b:y'])
    expect(s.booked).toBe(0)
  })
})

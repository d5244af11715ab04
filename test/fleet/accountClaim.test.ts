import { describe, expect, it } from 'vitest'
import { deferDataLoss, type LeaseView, nextClaim, parseAccountList } from '../../src/fleet/accountClaim.ts'

describe('nextClaim (ACCOUNT=auto)', () => {
  it('takes the first free account in list order', () => {
    expect(
      nextClaim(
        [
          { account: 'a', holder: '7:p1', ttlMs: 900, known: true },
          { account: 'b', holder: undefined, ttlMs: undefined, known: true },
          { account: 'c', holder: undefined, ttlMs: undefined, known: false },
        ],
        1_000,
      ),
    ).toEqual({ try: 'b' })
  })
  it('stands by until the soonest lease could lapse, at most pollMs, at least minWaitMs', () => {
    const all = (a: number, b: number) => [
      { account: 'a', holder: '1:x', ttlMs: a, known: true },
      { account: 'b', holder: '2:y', ttlMs: b, known: true },
    ]
    expect(nextClaim(all(900, 250), 1_000)).toEqual({ waitMs: 251 })
    expect(nextClaim(all(5_000, 4_000), 1_000)).toEqual({ waitMs: 1_000 })
    expect(nextClaim(all(0, 3), 1_000, 10)).toEqual({ waitMs: 10 })
  })
})

describe('deferDataLoss (a standby after a Redis restart)', () => {
  const free = (account: string, known: boolean): LeaseView => ({
    account,
    holder: undefined,
    ttlMs: undefined,
    known,
  })
  it('an account seen held, now free without its counter, counts as held until the deferral ends', () => {
    const seenHeld = new Set(['a'])
    const lostAt = new Map<string, number>()
    const at = (now: number) =>
      nextClaim(deferDataLoss([free('a', false)], seenHeld, lostAt, now, 800), 1_000)
    expect(at(1_000)).toEqual({ waitMs: 801 })
    expect(at(1_500)).toEqual({ waitMs: 301 })
    // Its holder did not re-assert it within the deferral (it died too): the standby takes it.
    expect(at(1_800)).toEqual({ try: 'a' })
  })
  it('no deferral for a counter that exists (a release or an expiry), an account never seen held, or 0 ms', () => {
    expect(deferDataLoss([free('a', true)], new Set(['a']), new Map(), 0, 800)[0]?.holder).toBeUndefined()
    expect(deferDataLoss([free('a', false)], new Set(), new Map(), 0, 800)[0]?.holder).toBeUndefined()
    expect(deferDataLoss([free('a', false)], new Set(['a']), new Map(), 0, 0)[0]?.holder).toBeUndefined()
  })
  it('a re-asserted lease clears the record: a later loss defers afresh', () => {
    const lostAt = new Map<string, number>()
    const seenHeld = new Set(['a'])
    deferDataLoss([free('a', false)], seenHeld, lostAt, 0, 800)
    deferDataLoss([{ account: 'a', holder: '5:h', ttlMs: 900, known: true }], seenHeld, lostAt, 500, 800)
    expect(lostAt.size).toBe(0)
    expect(nextClaim(deferDataLoss([free('a', false)], seenHeld, lostAt, 5_000, 800), 1_000)).toEqual({
      waitMs: 801,
    })
  })
})

describe('parseAccountList', () => {
  it('trims, keeps order', () => {
    expect(parseAccountList(' main , hedge,alt ')).toEqual(['main', 'hedge', 'alt'])
  })
  it('names every problem with its source', () => {
    expect(() => parseAccountList('a,a,b c', 'fleet.accounts')).toThrow(
      /fleet.accounts: "b c".*\n.*listed twice/s,
    )
    expect(() => parseAccountList(' , ')).toThrow(/FLEET_ACCOUNTS: no account named/)
  })
})

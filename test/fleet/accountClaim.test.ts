import { describe, expect, it } from 'vitest'
import { nextClaim, parseAccountList } from '../../src/fleet/accountClaim.ts'

describe('nextClaim (ACCOUNT=auto)', () => {
  it('takes the first free account in list order', () => {
    expect(
      nextClaim(
        [
          { account: 'a', holder: '7:p1', ttlMs: 900 },
          { account: 'b', holder: undefined, ttlMs: undefined },
          { account: 'c', holder: undefined, ttlMs: undefined },
        ],
        1_000,
      ),
    ).toEqual({ try: 'b' })
  })
  it('stands by until the soonest lease could lapse, at most pollMs, at least minWaitMs', () => {
    const all = (a: number, b: number) => [
      { account: 'a', holder: '1:x', ttlMs: a },
      { account: 'b', holder: '2:y', ttlMs: b },
    ]
    expect(nextClaim(all(900, 250), 1_000)).toEqual({ waitMs: 251 })
    expect(nextClaim(all(5_000, 4_000), 1_000)).toEqual({ waitMs: 1_000 })
    expect(nextClaim(all(0, 3), 1_000, 10)).toEqual({ waitMs: 10 })
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

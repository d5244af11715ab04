/** The adversarial kit itself: tampers answer in the venue's place, rewrite, and come off again. */
import { afterEach, describe, expect, it } from 'vitest'
import { type HostileVenue, startHostileVenue } from './hostileVenue.ts'
import { lyingClock, onEndpoints, rateLimited } from './tampers.ts'

let venue: HostileVenue | undefined
afterEach(async () => {
  await venue?.close()
  venue = undefined
})

const get = async (v: HostileVenue, path: string) => {
  const res = await fetch(`${v.perpsUrl}${path}`)
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    body: (await res.json()) as unknown,
  }
}

describe('hostile venue', () => {
  it('answers 429 with or without Retry-After, a bounded number of times, then the mock answers', async () => {
    venue = await startHostileVenue({
      mock: { seed: 1, clock: 'real', catalogue: { eventCount: 5 } },
      streams: false,
    })
    const withHeader = rateLimited({ match: onEndpoints('getTime'), retryAfterSeconds: 7, count: 2 })
    venue.use('429', withHeader.tamper)
    expect(await get(venue, '/v1/info/time')).toMatchObject({ status: 429, retryAfter: '7' })
    expect(await get(venue, '/v1/info/time')).toMatchObject({ status: 429 })
    expect(await get(venue, '/v1/info/time')).toMatchObject({ status: 200 })
    expect(withHeader.answered).toBe(2)
    venue.calm()
    venue.use('bare 429', rateLimited({ match: () => true }).tamper)
    expect(await get(venue, '/v1/info/time')).toMatchObject({ status: 429, retryAfter: null })
    expect(venue.exchanges.map((x) => x.fault)).toEqual([
      'tamper:rateLimited',
      'tamper:rateLimited',
      undefined,
      'tamper:rateLimited',
    ])
  })

  it('lies about its time by the offset given; removing the tamper ends the lie', async () => {
    venue = await startHostileVenue({
      mock: { seed: 1, clock: 'real', catalogue: { eventCount: 5 } },
      streams: false,
    })
    const off = venue.use('lie', lyingClock(3_600_000))
    const lied = (await get(venue, '/v1/info/time')).body as { time: number }
    expect(lied.time - Date.now()).toBeGreaterThan(3_500_000)
    off()
    const truth = (await get(venue, '/v1/info/time')).body as { time: number }
    expect(Math.abs(truth.time - Date.now())).toBeLessThan(60_000)
  })
})

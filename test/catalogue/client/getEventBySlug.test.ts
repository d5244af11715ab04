import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { getEventBySlug } from '../../../src/catalogue/client/getEventBySlug.ts'
import { InputValidationError, RequestRejectedError, UnexpectedResponseError } from '../../../src/errors.ts'
import { type FakeCatalogue, fakeCatalogue, wireEvent } from './fakeCatalogue.ts'

let fake: FakeCatalogue
beforeEach(() => {
  fake = fakeCatalogue()
})
afterEach(async () => {
  await fake.close()
})

describe('getEventBySlug', () => {
  it('GETs /events/slug/{slug} and parses the single-event form', async () => {
    fake.reply(200, {
      ...wireEvent('7'),
      liquidityAmm: 12.5,
      markets: [
        {
          id: '70',
          conditionId: `0x${'cd'.repeat(32)}`,
          ammType: null,
          marketMakerAddress: '',
          fpmmLive: false,
          volumeAmm: 0,
          liquidityAmm: 3,
          feeSchedule: { exponent: 2, rate: 0.02, takerOnly: true, rebateRate: 0 },
        },
      ],
    })
    const event = await getEventBySlug(fake.ctx, 'event-7')
    expect(fake.requests).toEqual(['/events/slug/event-7'])
    expect(event.liquidityAmm).toBe(12.5)
    expect(event.markets?.[0]).toMatchObject({
      fpmmLive: false,
      liquidityAmm: 3,
      feeSchedule: { rate: 0.02 },
    })
  })

  it('URL-encodes the slug and sends the include flags and locale', async () => {
    fake.reply(200, wireEvent('8'))
    await getEventBySlug(fake.ctx, 'a/b?c d', {
      includeChat: true,
      includeTemplate: false,
      includeBestLines: true,
      locale: 'fr',
    })
    expect(fake.requests).toEqual([
      '/events/slug/a%2Fb%3Fc%20d?include_chat=true&include_template=false&include_best_lines=true&locale=fr',
    ])
  })

  it('rejects an empty slug before any request', async () => {
    await expect(getEventBySlug(fake.ctx, '')).rejects.toBeInstanceOf(InputValidationError)
    expect(fake.requests).toEqual([])
  })

  it('maps 404 {type:"not found"} to RequestRejectedError', async () => {
    fake.reply(404, { type: 'not found', error: 'event not found: x' })
    await expect(getEventBySlug(fake.ctx, 'x')).rejects.toSatisfy(
      (e) => e instanceof RequestRejectedError && e.status === 404 && e.code === 'not found',
    )
  })

  it('rejects a single-event body without id', async () => {
    fake.reply(200, { slug: 'x' })
    await expect(getEventBySlug(fake.ctx, 'x')).rejects.toSatisfy(
      (e) => e instanceof UnexpectedResponseError && e.issues[0]?.startsWith('id: ') === true,
    )
  })
})

import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { getEventTags } from '../../../src/catalogue/client/getEventTags.ts'
import { InputValidationError, RequestRejectedError, UnexpectedResponseError } from '../../../src/errors.ts'
import { type FakeCatalogue, fakeCatalogue } from './fakeCatalogue.ts'

let fake: FakeCatalogue
beforeEach(() => {
  fake = fakeCatalogue()
})
afterEach(async () => {
  await fake.close()
})

describe('getEventTags', () => {
  it('GETs /events/{id}/tags and parses Tag[] (extra fields tolerated)', async () => {
    fake.reply(200, [
      { id: '21', label: 'Crypto', slug: 'crypto', forceShow: true, createdBy: 3, somethingNew: 1 },
      { id: '22', label: null },
    ])
    const tags = await getEventTags(fake.ctx, 16123)
    expect(fake.requests).toEqual(['/events/16123/tags'])
    expect(tags.map((t) => t.id)).toEqual(['21', '22'])
    expect(tags[0]?.somethingNew).toBe(1)
  })

  it('accepts a decimal string id', async () => {
    fake.reply(200, [])
    await getEventTags(fake.ctx, '42')
    expect(fake.requests).toEqual(['/events/42/tags'])
  })

  it.each([['abc'], ['1/2'], [-3], [1.5], ['']])('rejects id %j before any request', async (id) => {
    await expect(getEventTags(fake.ctx, id)).rejects.toBeInstanceOf(InputValidationError)
    expect(fake.requests).toEqual([])
  })

  it('maps 404 to RequestRejectedError', async () => {
    fake.reply(404, { type: 'not found', error: 'event not found: 5' })
    await expect(getEventTags(fake.ctx, 5)).rejects.toSatisfy(
      (e) => e instanceof RequestRejectedError && e.status === 404 && e.code === 'not found',
    )
  })

  it('rejects a non-array body', async () => {
    fake.reply(200, { tags: [] })
    await expect(getEventTags(fake.ctx, 5)).rejects.toBeInstanceOf(UnexpectedResponseError)
  })

  it('rejects a tag field of the wrong type, naming it', async () => {
    fake.reply(200, [{ id: '1', createdBy: 'admin' }])
    await expect(getEventTags(fake.ctx, 5)).rejects.toThrow(/0\.createdBy/)
  })
})

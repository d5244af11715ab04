import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { iterateEvents, paginateEvents } from '../../../src/catalogue/client/paginateEvents.ts'
import {
  InputValidationError,
  RequestRejectedError,
  TransportError,
  UnexpectedResponseError,
} from '../../../src/errors.ts'
import { NO_RETRY } from '../../../src/http/callJson.ts'
import { type FakeCatalogue, fakeCatalogue, wireEvent } from './fakeCatalogue.ts'

let fake: FakeCatalogue
beforeEach(() => {
  fake = fakeCatalogue()
})
afterEach(async () => {
  await fake.close()
})

describe('paginateEvents', () => {
  it('follows next_cursor as after_cursor until it is absent, keeping the other params', async () => {
    fake.reply(200, { events: [wireEvent('1'), wireEvent('2')], next_cursor: 'c1' })
    fake.reply(200, { events: [wireEvent('3'), wireEvent('4')], next_cursor: 'c2' })
    fake.reply(200, { events: [wireEvent('5')] })
    const pages: string[][] = []
    for await (const page of paginateEvents(fake.ctx, { limit: 2, closed: false })) {
      pages.push(page.events.map((e) => e.id))
    }
    expect(pages).toEqual([['1', '2'], ['3', '4'], ['5']])
    expect(fake.requests).toEqual([
      '/events/keyset?limit=2&closed=false',
      '/events/keyset?limit=2&after_cursor=c1&closed=false',
      '/events/keyset?limit=2&after_cursor=c2&closed=false',
    ])
    fake.assertAllUsed()
  })

  it('yields a final empty page (a full page always carries a cursor) and stops', async () => {
    fake.reply(200, { events: [wireEvent('1')], next_cursor: 'c1' })
    fake.reply(200, { events: [] })
    const sizes: number[] = []
    for await (const page of paginateEvents(fake.ctx, { limit: 1 })) sizes.push(page.events.length)
    expect(sizes).toEqual([1, 0])
  })

  it('starts from params.afterCursor', async () => {
    fake.reply(200, { events: [wireEvent('9')] })
    for await (const _ of paginateEvents(fake.ctx, { afterCursor: 'resume-here' })) {
      // drain
    }
    expect(fake.requests).toEqual(['/events/keyset?after_cursor=resume-here'])
  })

  it('stops after maxPages; the last page cursor resumes', async () => {
    fake.reply(200, { events: [wireEvent('1')], next_cursor: 'c1' })
    fake.reply(200, { events: [wireEvent('2')], next_cursor: 'c2' })
    const cursors: (string | undefined)[] = []
    for await (const page of paginateEvents(fake.ctx, { limit: 1 }, { maxPages: 2 }))
      cursors.push(page.nextCursor)
    expect(cursors).toEqual(['c1', 'c2'])
    expect(fake.requests).toHaveLength(2)
  })

  it('iterateEvents yields the events of all pages in order', async () => {
    fake.reply(200, { events: [wireEvent('1'), wireEvent('2')], next_cursor: 'c1' })
    fake.reply(200, { events: [wireEvent('3')] })
    const ids: string[] = []
    for await (const e of iterateEvents(fake.ctx, { limit: 2 })) ids.push(e.id)
    expect(ids).toEqual(['1', '2', '3'])
  })

  it('breaking out early sends no further request', async () => {
    fake.reply(200, { events: [wireEvent('1')], next_cursor: 'c1' })
    for await (const _ of iterateEvents(fake.ctx, { limit: 1 })) break
    expect(fake.requests).toHaveLength(1)
  })

  it('rejects bad params on the first next() without any request', async () => {
    const it = paginateEvents(fake.ctx, { limit: 1000 })
    await expect(it.next()).rejects.toBeInstanceOf(InputValidationError)
    expect(fake.requests).toEqual([])
  })

  it('stops with TransportError "aborted" once the signal aborts, sending nothing more', async () => {
    const controller = new AbortController()
    fake.reply(200, { events: [wireEvent('1')], next_cursor: 'c1' })
    const seen: string[] = []
    const run = (async () => {
      for await (const page of paginateEvents(fake.ctx, { limit: 1 }, { signal: controller.signal })) {
        seen.push(...page.events.map((e) => e.id))
        controller.abort()
      }
    })()
    const err = await run.catch((e: unknown) => e)
    expect(err).toBeInstanceOf(TransportError)
    expect((err as TransportError).message).toMatch(/aborted/)
    expect((err as TransportError).maybeDelivered).toBe(false)
    expect(seen).toEqual(['1'])
    expect(fake.requests).toHaveLength(1)
  })

  it('fails when the server hands back the cursor it was given', async () => {
    fake.reply(200, { events: [wireEvent('1')], next_cursor: 'same' })
    fake.reply(200, { events: [wireEvent('1')], next_cursor: 'same' })
    const err = await (async () => {
      for await (const _ of paginateEvents(fake.ctx, { limit: 1 })) {
        // drain
      }
    })().catch((e: unknown) => e)
    expect(err).toBeInstanceOf(UnexpectedResponseError)
    expect((err as Error).message).toMatch(/next_cursor: did not advance/)
  })

  it('surfaces a 422 on a later page as RequestRejectedError', async () => {
    fake.reply(200, { events: [wireEvent('1')], next_cursor: 'stale' })
    fake.reply(422, { type: 'validation error', error: 'invalid cursor' })
    const err = await (async () => {
      for await (const _ of paginateEvents(fake.ctx, { limit: 1 }, { retry: NO_RETRY })) {
        // drain
      }
    })().catch((e: unknown) => e)
    expect(err).toBeInstanceOf(RequestRejectedError)
    expect(err).toMatchObject({ status: 422, code: 'validation error', serverMessage: 'invalid cursor' })
  })
})

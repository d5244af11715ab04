import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { decodeCursor, encodeCursor } from '../../../src/mock/catalogue/keysetCursor.ts'

const secret = createHash('sha256').update('test').digest()
const payload = { order: 'volume,id', asc: false, keys: [1234.5, '16002'] as (string | number | null)[] }

describe('keyset cursor', () => {
  it('round-trips order, direction and keys (null included)', () => {
    const withNull = { ...payload, keys: [null, '16002'] }
    expect(decodeCursor(secret, encodeCursor(secret, payload))).toEqual(payload)
    expect(decodeCursor(secret, encodeCursor(secret, withNull))).toEqual(withNull)
  })

  it('is base64url JSON with the {"keys":[{"t","v"}]} shape, plus a tag', () => {
    const [body, tag] = encodeCursor(secret, payload).split('.')
    expect(JSON.parse(Buffer.from(body ?? '', 'base64url').toString())).toEqual({
      order: 'volume,id',
      asc: false,
      keys: [
        { t: 'number', v: 1234.5 },
        { t: 'string', v: '16002' },
      ],
    })
    expect(tag).toMatch(/^[A-Za-z0-9_-]{22}$/)
  })

  it('rejects a cursor whose payload was edited (tag no longer matches)', () => {
    const cursor = encodeCursor(secret, payload)
    const [body, tag] = cursor.split('.') as [string, string]
    const json = JSON.parse(Buffer.from(body, 'base64url').toString())
    json.keys[1].v = '1'
    const forged = `${Buffer.from(JSON.stringify(json)).toString('base64url')}.${tag}`
    expect(decodeCursor(secret, forged)).toBeUndefined()
  })

  it('rejects a cursor signed with another secret, a flipped tag char, garbage and empty strings', () => {
    const cursor = encodeCursor(secret, payload)
    const other = createHash('sha256').update('other').digest()
    expect(decodeCursor(other, cursor)).toBeUndefined()
    const last = cursor.at(-1) === 'A' ? 'B' : 'A'
    expect(decodeCursor(secret, `${cursor.slice(0, -1)}${last}`)).toBeUndefined()
    for (const bad of ['', '.', 'abc', 'a.b.c', `${cursor}.x`, 'eyJ9.!!!'])
      expect(decodeCursor(secret, bad)).toBeUndefined()
  })
})

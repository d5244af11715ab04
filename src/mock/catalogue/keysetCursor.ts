/**
 * Opaque, tamper-evident keyset cursors: `base64url(JSON payload) "." base64url(HMAC-SHA256 tag)`.
 * The payload names the order it was issued for and the sort key of the last row served, in the
 * `{"keys":[{"t":...,"v":...}]}` style seen on the live venue. Any change to either part fails the tag.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { z } from 'zod'
import type { SortValue } from './eventOrder.ts'

export interface CursorPayload {
  /** The order columns, tie-breaker included, comma-separated. */
  order: string
  asc: boolean
  keys: readonly SortValue[]
}

const KeySchema = z.discriminatedUnion('t', [
  z.strictObject({ t: z.literal('string'), v: z.string() }),
  z.strictObject({ t: z.literal('number'), v: z.number() }),
  z.strictObject({ t: z.literal('null') }),
])
const WirePayloadSchema = z.strictObject({
  order: z.string(),
  asc: z.boolean(),
  keys: z.array(KeySchema).min(1),
})

const TAG_BYTES = 16
const BASE64URL = /^[A-Za-z0-9_-]+$/

function tag(secret: Buffer, body: string): Buffer {
  return createHmac('sha256', secret).update(body).digest().subarray(0, TAG_BYTES)
}

export function encodeCursor(secret: Buffer, payload: CursorPayload): string {
  const wire = {
    order: payload.order,
    asc: payload.asc,
    keys: payload.keys.map((v) =>
      v === null ? { t: 'null' } : typeof v === 'number' ? { t: 'number', v } : { t: 'string', v },
    ),
  }
  const body = Buffer.from(JSON.stringify(wire)).toString('base64url')
  return `${body}.${tag(secret, body).toString('base64url')}`
}

/** The payload of a genuine cursor, or undefined for anything forged, altered or malformed. */
export function decodeCursor(secret: Buffer, cursor: string): CursorPayload | undefined {
  const parts = cursor.split('.')
  const [body, sig] = parts
  if (parts.length !== 2 || body === undefined || sig === undefined) return undefined
  if (!BASE64URL.test(body) || !BASE64URL.test(sig)) return undefined
  // Compare the encoded text, not decoded bytes: base64url has spare bits in its last character,
  // so byte comparison would accept a cursor with one character changed.
  const given = Buffer.from(sig)
  const expected = Buffer.from(tag(secret, body).toString('base64url'))
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined
  let json: unknown
  try {
    json = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'))
  } catch {
    return undefined
  }
  const parsed = WirePayloadSchema.safeParse(json)
  if (!parsed.success) return undefined
  return {
    order: parsed.data.order,
    asc: parsed.data.asc,
    keys: parsed.data.keys.map((k) => (k.t === 'null' ? null : k.v)),
  }
}

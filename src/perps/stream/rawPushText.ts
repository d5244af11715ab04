/**
 * A push frame's envelope read from its text, without parsing it: the venue writes every push as
 * `{"ch":"…","ts":…,"sq":…,"data":…}` (ws-protocol §4, the official client's envelope order), and at
 * 1,000 instruments nearly all of the 2,000 frames of a tick carry data equal, byte for byte, to the
 * last push of their key. The intake compares that text with the last accepted one's (pushIntake.ts)
 * and, when equal, reuses what was accepted then with the new `ts` and `sq`: no JSON.parse, no schema.
 * Anything spelled otherwise (other key order, spaces, a negative or fractional number, an escaped
 * channel) is `undefined` here and takes the parsed path, which accepts more. Pure.
 */

export interface PushText {
  ch: string
  ts: number
  sq: number
  /** The data's JSON text, as received. */
  data: string
}

const HEAD = '{"ch":"'
const TS = '","ts":'
const SQ = ',"sq":'
const DATA = ',"data":'
const IID = '"iid":'
/** A non-negative integer of at most 15 digits is a safe integer. */
const MAX_DIGITS = 15

/** Where the digits read last by `digitsAt` end (a module slot, not an object per number: ~3 per frame). */
let digitsEnd = 0

/**
 * The digits at `from` as a number (their end in `digitsEnd`), or -1 when there are none (or too
 * many). Synchronous and pure but for that slot: read it before the next call.
 */
function digitsAt(text: string, from: number): number {
  let value = 0
  let i = from
  for (; i < text.length && i - from <= MAX_DIGITS; i++) {
    const c = text.charCodeAt(i) - 48
    if (c < 0 || c > 9) break
    value = value * 10 + c
  }
  if (i === from || i - from > MAX_DIGITS) return -1
  digitsEnd = i
  return value
}

/** The channel read last: consecutive frames on a shared channel (`tickers::all`) reuse its string. */
let lastChannel = ''

/**
 * The channel at HEAD..`end`: the last one read when the text spells it (no new string, and its hash,
 * which every map keyed by channel asks for, is already computed), else a new one.
 */
function channelAt(text: string, end: number): string {
  const last = lastChannel
  if (end - HEAD.length === last.length) {
    let i = 0
    while (i < last.length && text.charCodeAt(HEAD.length + i) === last.charCodeAt(i)) i++
    if (i === last.length) return last
  }
  lastChannel = text.slice(HEAD.length, end)
  return lastChannel
}

/** The envelope of a push written in the venue's order, else undefined. */
export function pushText(text: string): PushText | undefined {
  if (!text.startsWith(HEAD) || text.charCodeAt(text.length - 1) !== 125 /* } */) return undefined
  const chEnd = text.indexOf('"', HEAD.length)
  if (chEnd < 0 || !text.startsWith(TS, chEnd)) return undefined
  const ch = channelAt(text, chEnd)
  if (ch.includes('\\')) return undefined
  const ts = digitsAt(text, chEnd + TS.length)
  if (ts < 0 || !text.startsWith(SQ, digitsEnd)) return undefined
  const sq = digitsAt(text, digitsEnd + SQ.length)
  if (sq < 0 || !text.startsWith(DATA, digitsEnd)) return undefined
  return { ch, ts, sq, data: text.slice(digitsEnd + DATA.length, text.length - 1) }
}

/**
 * The key of a push's data within its channel: on a shared channel (`…::all`) the first `"iid":` in
 * the text (a key: inside a JSON string a quote is escaped), else -1. Used alike when remembering and
 * when looking up, so a text is always found under the key it was remembered under.
 */
export function textKey(ch: string, data: string): number {
  if (!ch.endsWith('::all')) return -1
  const at = data.indexOf(IID)
  return at < 0 ? -1 : digitsAt(data, at + IID.length)
}

/** Longest data text kept for comparison (a ticker or BBO is ~200 characters; statistics with klines are not kept). */
export const MAX_KEPT_TEXT = 1_024

/**
 * True for data text worth keeping: one flat JSON object (no nested object or array, so nothing
 * follows it inside the envelope) of at most MAX_KEPT_TEXT characters.
 */
export function keepableText(data: string): boolean {
  return (
    data.length <= MAX_KEPT_TEXT &&
    data.charCodeAt(0) === 123 /* { */ &&
    data.charCodeAt(data.length - 1) === 125 /* } */ &&
    data.indexOf('{', 1) < 0 &&
    data.indexOf('[') < 0
  )
}

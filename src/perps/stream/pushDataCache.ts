/**
 * The last accepted push per key (the channel, plus the instrument on a shared channel such as
 * `tickers::all`), so a push whose raw data equals the last accepted raw data field for field reuses
 * the value that passed the schema then: every ticker and BBO of every instrument is pushed each
 * second, nearly all unchanged, and re-validating them is most of the per-push work. Only flat objects
 * (every field a string, number, boolean or null) are kept; anything nested is parsed every time.
 * Pure; bounded: at most MAX_KEYS_PER_CHANNEL instruments per channel (a venue naming ever new ids
 * empties the channel's entries rather than growing them), and the owner clears it on reconnect.
 */

/** Far above any venue's instrument count; reached only by a flood of invented ids. */
export const MAX_KEYS_PER_CHANNEL = 2_048

type Flat = Readonly<Record<string, unknown>>

interface Entry<T> {
  raw: Flat
  fields: number
  value: T
}

/** A plain object whose fields are all primitives, else undefined. */
function flat(raw: unknown): Flat | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined
  const o = raw as Flat
  for (const k in o) {
    const v = o[k]
    if (typeof v === 'object' && v !== null) return undefined
  }
  return o
}

/** The instrument of a shared channel's push (`iid`), or -1 for a per-instrument or account channel. */
function instrumentOf(raw: Flat): number {
  const iid = raw.iid
  return typeof iid === 'number' ? iid : -1
}

export class PushDataCache<T> {
  readonly #byChannel = new Map<string, Map<number, Entry<T>>>()

  /** The value accepted for the same raw data on this key last time, else undefined. */
  lookup(channel: string, raw: unknown): T | undefined {
    const o = flat(raw)
    if (o === undefined) return undefined
    const seen = this.#byChannel.get(channel)?.get(instrumentOf(o))
    if (seen === undefined) return undefined
    let fields = 0
    for (const k in o) {
      if (o[k] !== seen.raw[k]) return undefined
      fields++
    }
    return fields === seen.fields ? seen.value : undefined
  }

  /** Records `value` as what `raw` parsed to (only flat raw data is kept). */
  remember(channel: string, raw: unknown, value: T): void {
    const o = flat(raw)
    if (o === undefined) return
    let byIid = this.#byChannel.get(channel)
    if (byIid === undefined) {
      byIid = new Map()
      this.#byChannel.set(channel, byIid)
    }
    const key = instrumentOf(o)
    if (!byIid.has(key) && byIid.size >= MAX_KEYS_PER_CHANNEL) byIid.clear()
    byIid.set(key, { raw: o, fields: Object.keys(o).length, value })
  }

  clear(): void {
    this.#byChannel.clear()
  }

  forget(channel: string): void {
    this.#byChannel.delete(channel)
  }

  /** Entries kept (tests). */
  get size(): number {
    let n = 0
    for (const m of this.#byChannel.values()) n += m.size
    return n
  }
}

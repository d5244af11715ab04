/**
 * Writes recorded rows into a dataset, one chunk per kind, instrument and UTC hour, without holding
 * the event loop: a row is turned into its JSON line when it arrives (a microsecond each), and each
 * `flush` compresses only the lines since the last one on zlib's thread pool and appends them to the
 * hour's file as one gzip member (store.ts). A crash loses at most the lines since the last flush.
 * An hour closes when a row of a later hour arrives; at the flush after, the closed hour's members
 * are recompressed as one (off the loop too) for the size of a whole-hour file. Bounded on disk:
 * past `maxBytes`, the oldest closed hours are deleted. Flushes run one at a time.
 */
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { gzip } from 'node:zlib'
import { chunkPath, type DataKind, HOUR_MS, type RowOf } from '../dataset/format.ts'
import type { DatasetStore } from '../dataset/store.ts'

const gzipAsync = promisify(gzip)

interface Open {
  kind: DataKind
  symbol: string
  hour: number
  /** First and last row time of the lines not yet written. */
  from: number
  last: number
  lines: string[]
}

interface Write {
  path: string
  kind: DataKind
  symbol: string
  hour: number
  from: number
  to: number
  body: string
  rows: number
  /** The hour is closed: recompress its members as one after this append. */
  compact: boolean
}

export interface HourlyWriter {
  add<K extends DataKind>(kind: K, symbol: string, row: RowOf[K]): void
  /** Appends what arrived since the last flush (compressed off the loop), then trims to the disk bound. */
  flush(): Promise<void>
  /** Bytes of the chunks the manifest lists. */
  bytes(): number
  /** Chunks deleted to stay under the bound. */
  readonly dropped: number
}

export function createHourlyWriter(store: DatasetStore, maxBytes: number): HourlyWriter {
  const open = new Map<string, Open>()
  /** Closed hours whose last lines and recompression wait for the next flush. */
  let closed: Write[] = []
  let dropped = 0
  let chain: Promise<void> = Promise.resolve()

  function take(o: Open, compact: boolean): Write {
    const w: Write = {
      path: chunkPath(o.kind, o.symbol, o.hour),
      kind: o.kind,
      symbol: o.symbol,
      hour: o.hour,
      from: o.from,
      to: Math.min(o.hour + HOUR_MS, o.last + 1),
      body: o.lines.length === 0 ? '' : `${o.lines.join('\n')}\n`,
      rows: o.lines.length,
      compact,
    }
    o.lines = []
    return w
  }

  /** Compresses one write on the thread pool and appends it. */
  async function append(w: Write): Promise<void> {
    if (w.rows === 0) return
    const gz = await gzipAsync(w.body, { level: 6 })
    await store.appendChunkAsync(
      w.path,
      { kind: w.kind, symbol: w.symbol, from: w.from, to: w.to },
      gz,
      w.rows,
    )
  }

  /** Whole-hour compression: one member compresses about twice as well as a minute's members. */
  async function compact(path: string): Promise<void> {
    await store.recompressChunkAsync(path)
  }

  async function trim(): Promise<void> {
    let total = totalBytes()
    if (total <= maxBytes) return
    const openPaths = new Set([...open.values()].map((o) => chunkPath(o.kind, o.symbol, o.hour)))
    const old = Object.entries(store.manifest.chunks)
      .filter(([p]) => !openPaths.has(p))
      .sort((a, b) => a[1].from - b[1].from || (a[0] < b[0] ? -1 : 1))
    for (const [path, c] of old) {
      if (total <= maxBytes) break
      store.forget(path, false)
      await rm(join(store.dir, path), { force: true })
      total -= c.bytes
      dropped++
    }
  }

  function totalBytes(): number {
    let n = 0
    for (const c of Object.values(store.manifest.chunks)) n += c.bytes
    return n
  }

  /**
   * One flush: appends, recompresses the hours that closed, trims to the bound, then writes the
   * manifest once. One compression at a time: on a 2-core machine, zlib's four pool threads busy at
   * once starve the main thread (measured: 4 at a time stalled the loop 28 ms, one at a time 4 ms,
   * and finished sooner), and the main thread is the bot's.
   */
  async function flushNow(): Promise<void> {
    const writes = closed
    closed = []
    for (const o of open.values()) if (o.lines.length > 0) writes.push(take(o, false))
    try {
      for (const w of writes) await append(w)
      for (const w of writes) if (w.compact) await compact(w.path)
      await trim()
    } finally {
      store.saveManifest()
    }
  }

  return {
    add(kind, symbol, row) {
      const key = `${kind}/${symbol}`
      const hour = Math.floor(row.t / HOUR_MS) * HOUR_MS
      let o = open.get(key)
      if (o !== undefined && hour > o.hour) {
        closed.push(take(o, true))
        o = undefined
      }
      if (o === undefined) {
        o = { kind, symbol, hour, from: row.t, last: row.t, lines: [] }
        open.set(key, o)
      }
      // A row from an earlier hour than the open one (clock going back) is kept in the open hour.
      if (o.lines.length === 0) o.from = row.t
      o.last = Math.max(o.last, row.t)
      o.lines.push(JSON.stringify(row))
    },
    flush() {
      // A failed flush (disk full) is its caller's to report; the next one still runs.
      const next = chain.catch(() => undefined).then(flushNow)
      chain = next
      return next
    },
    bytes: totalBytes,
    get dropped() {
      return dropped
    },
  }
}

/**
 * Writes recorded rows into a dataset, one chunk per kind, instrument and UTC hour. The current hour's
 * rows are rewritten whole at each `flush` (so a crash loses at most the rows since the last flush,
 * and no file is ever half-written: store.ts renames into place); an hour is closed when a row of a
 * later hour arrives. Bounded on disk: past `maxBytes`, the oldest closed hours are deleted.
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { chunkPath, type DataKind, HOUR_MS, type RowOf } from '../dataset/format.ts'
import type { DatasetStore } from '../dataset/store.ts'

interface Open<K extends DataKind> {
  kind: K
  symbol: string
  hour: number
  from: number
  rows: RowOf[K][]
  dirty: boolean
}

export interface HourlyWriter {
  add<K extends DataKind>(kind: K, symbol: string, row: RowOf[K]): void
  /** Writes every open hour that changed; then trims to the disk bound. */
  flush(): void
  /** Bytes of the chunks the manifest lists. */
  bytes(): number
  /** Chunks deleted to stay under the bound. */
  readonly dropped: number
}

export function createHourlyWriter(store: DatasetStore, maxBytes: number): HourlyWriter {
  const open = new Map<string, Open<DataKind>>()
  let dropped = 0

  function write(o: Open<DataKind>): void {
    if (!o.dirty || o.rows.length === 0) return
    const last = o.rows.at(-1)?.t ?? o.from
    store.writeChunk(
      chunkPath(o.kind, o.symbol, o.hour),
      { kind: o.kind, symbol: o.symbol, from: o.from, to: Math.min(o.hour + HOUR_MS, last + 1) },
      o.rows,
    )
    o.dirty = false
  }

  function trim(): void {
    let total = totalBytes()
    if (total <= maxBytes) return
    const openPaths = new Set([...open.values()].map((o) => chunkPath(o.kind, o.symbol, o.hour)))
    const closed = Object.entries(store.manifest.chunks)
      .filter(([p]) => !openPaths.has(p))
      .sort((a, b) => a[1].from - b[1].from || (a[0] < b[0] ? -1 : 1))
    for (const [path, c] of closed) {
      if (total <= maxBytes) break
      store.forget(path)
      rmSync(join(store.dir, path), { force: true })
      total -= c.bytes
      dropped++
    }
  }

  function totalBytes(): number {
    let n = 0
    for (const c of Object.values(store.manifest.chunks)) n += c.bytes
    return n
  }

  return {
    add(kind, symbol, row) {
      const key = `${kind}/${symbol}`
      const hour = Math.floor(row.t / HOUR_MS) * HOUR_MS
      let o = open.get(key)
      if (o !== undefined && hour > o.hour) {
        write(o)
        o = undefined
      }
      if (o === undefined) {
        o = { kind, symbol, hour, from: row.t, rows: [], dirty: false }
        open.set(key, o)
      }
      // A row from an earlier hour than the open one (clock going back) is kept in the open hour.
      o.rows.push(row)
      o.dirty = true
    },
    flush() {
      for (const o of open.values()) write(o)
      trim()
    },
    bytes: totalBytes,
    get dropped() {
      return dropped
    },
  }
}

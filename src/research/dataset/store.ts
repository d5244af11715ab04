/**
 * Reading and writing a dataset folder. Each chunk is written whole to a temporary file and renamed
 * into place, and only then entered in the manifest (also written by rename), so a crash loses at most
 * the chunk being written and never leaves a half file that the manifest vouches for.
 * Recordings also append: a gzip member per flush (gzip readers take concatenated members), after
 * which the manifest's byte count grows; bytes past the count (an append a crash cut) are not read
 * and are cut off before the next append.
 */
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { appendFile, mkdir, rename, rm, stat, truncate } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { createGunzip, createGzip, gzipSync } from 'node:zlib'
import {
  DatasetLimitError,
  gunzipBounded,
  MAX_CHUNK_BYTES,
  MAX_CHUNK_ROWS,
  MAX_MANIFEST_BYTES,
  readContained,
} from './containedFiles.ts'
import {
  type ChunkEntry,
  CorruptChunkError,
  DATASET_FORMAT,
  type DataKind,
  DatasetError,
  type DatasetInstrument,
  type Manifest,
  manifestSchema,
  ROW_CHECKS,
  type RowOf,
} from './format.ts'

export const MANIFEST = 'manifest.json'

export class DatasetStore {
  readonly dir: string
  #manifest: Manifest

  private constructor(dir: string, manifest: Manifest) {
    this.dir = dir
    this.#manifest = manifest
  }

  /**
   * Opens an existing dataset.
   * @throws {@link DatasetError} when the folder or its manifest is missing or invalid.
   */
  static open(dir: string): DatasetStore {
    const path = join(dir, MANIFEST)
    if (!existsSync(path)) throw new DatasetError(`no dataset at ${dir} (${MANIFEST} is missing)`)
    let raw: unknown
    const text = readContained(dir, MANIFEST, MAX_MANIFEST_BYTES).toString('utf8')
    try {
      raw = JSON.parse(text)
    } catch (e) {
      throw new DatasetError(`${path} is not valid JSON`, { cause: e })
    }
    const parsed = manifestSchema.safeParse(raw)
    if (!parsed.success)
      throw new DatasetError(`${path} is not a ${DATASET_FORMAT} manifest`, {
        details: parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.')}: ${i.message}`),
      })
    return new DatasetStore(dir, parsed.data)
  }

  /** Opens the dataset, or creates an empty one; an existing one must come from the same source. */
  static openOrCreate(dir: string, source: string, klineIntervalMs: number): DatasetStore {
    if (existsSync(join(dir, MANIFEST))) {
      const store = DatasetStore.open(dir)
      if (store.manifest.source !== source)
        throw new DatasetError(
          `${dir} holds data from ${store.manifest.source}, not ${source}: use another --out folder`,
        )
      return store
    }
    mkdirSync(dir, { recursive: true })
    const store = new DatasetStore(dir, {
      format: DATASET_FORMAT,
      source,
      klineIntervalMs,
      instruments: {},
      chunks: {},
    })
    store.#save()
    return store
  }

  get manifest(): Manifest {
    return this.#manifest
  }

  setInstrument(i: DatasetInstrument): void {
    this.#manifest.instruments[i.symbol] = i
    this.#save()
  }

  /** True when the manifest lists `path` covering [from, to) and its file is there with its size. */
  hasChunk(path: string, from: number, to: number): boolean {
    const c = this.#manifest.chunks[path]
    if (c === undefined || c.from > from || c.to < to) return false
    try {
      return statSync(join(this.dir, path)).size === c.bytes
    } catch {
      return false
    }
  }

  /** Writes a chunk whole (temp file + rename), then lists it in the manifest. */
  writeChunk<K extends DataKind>(
    path: string,
    entry: Omit<ChunkEntry, 'rows' | 'bytes'> & { kind: K },
    rows: readonly RowOf[K][],
  ): ChunkEntry {
    const body = rows.map((r) => JSON.stringify(r)).join('\n')
    return this.writeChunkBytes(
      path,
      entry,
      gzipSync(rows.length > 0 ? `${body}\n` : '', { level: 6 }),
      rows.length,
    )
  }

  /** Writes a chunk's compressed bytes whole (temp file + rename), then lists it in the manifest. */
  writeChunkBytes(
    path: string,
    entry: Omit<ChunkEntry, 'rows' | 'bytes'>,
    gz: Uint8Array,
    rows: number,
  ): ChunkEntry {
    const file = join(this.dir, path)
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(`${file}.tmp`, gz)
    renameSync(`${file}.tmp`, file)
    const full: ChunkEntry = { ...entry, rows, bytes: gz.length }
    this.#manifest.chunks[path] = full
    this.#save()
    return full
  }

  /**
   * Appends a gzip member of `rows` rows to a chunk (creating it) with non-blocking file calls, and
   * counts it in the manifest in memory; the entry's window widens to cover `entry`'s. The manifest
   * is written by `saveManifest` (once per batch of appends: a recording appends to hundreds of
   * chunks at a flush).
   */
  async appendChunkAsync(
    path: string,
    entry: Omit<ChunkEntry, 'rows' | 'bytes'>,
    gz: Uint8Array,
    rows: number,
  ): Promise<void> {
    const file = join(this.dir, path)
    const listed = this.#manifest.chunks[path]
    const vouched = listed?.bytes ?? 0
    await mkdir(dirname(file), { recursive: true })
    // Bytes the manifest does not vouch for (a cut append, or a file it never listed) go first.
    const size = await stat(file).then(
      (st) => st.size,
      () => 0,
    )
    if (size > vouched) await truncate(file, vouched)
    await appendFile(file, gz)
    this.#manifest.chunks[path] = {
      ...entry,
      from: Math.min(entry.from, listed?.from ?? entry.from),
      to: Math.max(entry.to, listed?.to ?? entry.to),
      rows: (listed?.rows ?? 0) + rows,
      bytes: vouched + gz.length,
    }
  }

  /**
   * Recompresses a chunk's members as one gzip member, streamed in small pieces (nothing of the hour
   * is held whole), into a temp file renamed into place; the manifest entry changes in memory
   * (written by `saveManifest`). False when the chunk changed meanwhile or is empty.
   */
  async recompressChunkAsync(path: string): Promise<boolean> {
    const listed = this.#manifest.chunks[path]
    if (listed === undefined || listed.bytes === 0) return false
    const file = join(this.dir, path)
    const tmp = `${file}.tmp`
    await pipeline(
      createReadStream(file, { start: 0, end: listed.bytes - 1 }),
      createGunzip(),
      createGzip({ level: 6 }),
      createWriteStream(tmp),
    )
    if (this.#manifest.chunks[path]?.bytes !== listed.bytes) {
      await rm(tmp, { force: true })
      return false
    }
    const { size } = await stat(tmp)
    await rename(tmp, file)
    this.#manifest.chunks[path] = { ...listed, bytes: size }
    return true
  }

  /** Writes the manifest (after `appendChunkAsync` / `recompressChunkAsync` / `forget(path, false)`). */
  saveManifest(): void {
    this.#save()
  }

  /** Chunks of one kind and instrument overlapping [from, to), oldest first. */
  chunks(kind: DataKind, symbol: string, from: number, to: number): [string, ChunkEntry][] {
    return Object.entries(this.#manifest.chunks)
      .filter(([, c]) => c.kind === kind && c.symbol === symbol && c.to > from && c.from < to)
      .sort((a, b) => a[1].from - b[1].from)
  }

  /**
   * One chunk's rows, parsed and checked (loaded whole: a chunk is one hour of one instrument).
   * @throws {@link CorruptChunkError} naming the file when it does not decompress or a row is malformed.
   */
  readChunk<K extends DataKind>(path: string, kind: K): RowOf[K][] {
    const file = join(this.dir, path)
    const listed = this.#manifest.chunks[path]
    if (listed !== undefined && listed.rows > MAX_CHUNK_ROWS)
      throw new DatasetLimitError(
        file,
        `the manifest lists ${listed.rows} rows, over the limit of ${MAX_CHUNK_ROWS}`,
      )
    let text: string
    try {
      // Only what the manifest counts: an append cut by a crash lies past it.
      text = gunzipBounded(file, readContained(this.dir, path, MAX_CHUNK_BYTES, listed?.bytes))
    } catch (e) {
      if (e instanceof DatasetLimitError) throw e
      throw new CorruptChunkError(file, e instanceof Error ? e.message : String(e))
    }
    const check = ROW_CHECKS[kind]
    const out: RowOf[K][] = []
    // One parse for the whole hour (several times faster than a parse per line); on failure the
    // per-line pass below names the bad line.
    const body = text.endsWith('\n') ? text.slice(0, -1) : text
    let all: unknown
    try {
      all = body === '' ? [] : JSON.parse(`[${body.replaceAll('\n', ',')}]`)
    } catch {
      all = undefined
    }
    const rows: unknown[] = Array.isArray(all)
      ? all
      : text
          .split('\n')
          .filter((l) => l !== '')
          .map((l, i) => parseLine(file, l, i + 1))
    for (let i = 0; i < rows.length; i++) {
      const raw = rows[i]
      if (typeof raw !== 'object' || raw === null)
        throw new CorruptChunkError(file, `line ${i + 1} is not an object`)
      const bad = check(raw as Record<string, unknown>)
      if (bad !== undefined) throw new CorruptChunkError(file, `line ${i + 1}: ${bad}`)
      // Checked field by field above (ROW_CHECKS mirrors ROW_SCHEMAS; a test holds them together).
      out.push(raw as RowOf[K])
    }
    const expected = this.#manifest.chunks[path]?.rows
    if (expected !== undefined && expected !== out.length)
      throw new CorruptChunkError(file, `${out.length} rows, the manifest says ${expected}`)
    return out
  }

  /** Drops a chunk from the manifest (a corrupt one, so the next download fetches it again). */
  forget(path: string, save = true): void {
    delete this.#manifest.chunks[path]
    if (save) this.#save()
  }

  #save(): void {
    const file = join(this.dir, MANIFEST)
    writeFileSync(`${file}.tmp`, `${JSON.stringify(this.#manifest, null, 1)}\n`)
    renameSync(`${file}.tmp`, file)
  }
}

function parseLine(file: string, l: string, line: number): unknown {
  try {
    return JSON.parse(l)
  } catch {
    throw new CorruptChunkError(file, `line ${line} is not JSON`)
  }
}

/**
 * What a dataset reader may open (issue 34.5): only regular files inside the dataset folder, by a
 * path the manifest could have written, within size, decompressed-size and row limits. A link out of
 * the folder (to `/dev/zero`, to another folder), a FIFO, a device, a `../` path or a file past its
 * limit stops the reader with a `DatasetLimitError` naming the file and the limit, before anything
 * large is read: a FIFO is opened non-blocking, a link is refused at open (O_NOFOLLOW) and any linked
 * folder on the way by comparing real paths.
 */
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from 'node:fs'
import { join, sep } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { DatasetError } from './format.ts'

/** The largest manifest read (bytes); a day of 10 instruments lists ~1,500 chunks in ~0.4 MB. */
export const MAX_MANIFEST_BYTES = 64 * 1024 * 1024
/** The largest chunk file read (compressed bytes); an hour of 1 s klines is ~0.1 MB. */
export const MAX_CHUNK_BYTES = 64 * 1024 * 1024
/** The most a chunk may decompress to (bytes), and the most rows it may hold (≈ 280 a second for an hour). */
export const MAX_CHUNK_TEXT_BYTES = 128 * 1024 * 1024
export const MAX_CHUNK_ROWS = 1_000_000

/** A dataset file refused: outside the folder, not a regular file, or over a limit. */
export class DatasetLimitError extends DatasetError {
  override name = 'DatasetLimitError'
  readonly file: string
  constructor(file: string, why: string) {
    super(`refused dataset file ${file}: ${why}`)
    this.file = file
  }
}

/** A Node error's `code`, when it has one. */
const errorCode = (e: unknown): unknown => (e instanceof Error && 'code' in e ? e.code : undefined)

const mb = (n: number): string => `${(n / 1024 / 1024).toFixed(0)} MB`

/**
 * Reads at most `maxBytes` (and at most `limit` when given) of the regular file `rel` inside `dir`.
 * @throws {@link DatasetLimitError} for a path that leaves the folder, a link, a FIFO or device, or a
 *   file larger than `maxBytes`; a missing file throws the usual ENOENT error.
 */
export function readContained(dir: string, rel: string, maxBytes: number, limit?: number): Buffer {
  const file = join(dir, rel)
  if (rel.split(/[\\/]/).some((s) => s === '..' || s === '') || rel.startsWith('/'))
    throw new DatasetLimitError(file, 'the path leaves the dataset folder')
  let fd: number
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (e) {
    if (errorCode(e) === 'ELOOP')
      throw new DatasetLimitError(file, 'a symbolic link (only regular files inside the folder are read)')
    throw e
  }
  try {
    const st = fstatSync(fd)
    if (!st.isFile()) throw new DatasetLimitError(file, 'not a regular file (a FIFO, device or folder)')
    const base = realpathSync(dir)
    const real = realpathSync(file)
    if (!real.startsWith(base + sep))
      throw new DatasetLimitError(file, `it lies outside the dataset folder (${real})`)
    if (st.size > maxBytes)
      throw new DatasetLimitError(file, `${st.size} bytes, over the limit of ${mb(maxBytes)}`)
    const want = Math.min(st.size, limit ?? st.size)
    const buf = Buffer.allocUnsafe(want)
    let got = 0
    while (got < want) {
      const n = readSync(fd, buf, got, want - got, got)
      if (n === 0) break
      got += n
    }
    return got === want ? buf : buf.subarray(0, got)
  } finally {
    closeSync(fd)
  }
}

/**
 * Decompresses a chunk within `MAX_CHUNK_TEXT_BYTES`, and checks its line count against
 * `MAX_CHUNK_ROWS` before anything is parsed.
 * @throws {@link DatasetLimitError} over either limit; zlib's own error for bytes that are not gzip.
 */
export function gunzipBounded(file: string, gz: Uint8Array): string {
  let text: string
  try {
    text = gunzipSync(gz, { maxOutputLength: MAX_CHUNK_TEXT_BYTES }).toString('utf8')
  } catch (e) {
    if (errorCode(e) === 'ERR_BUFFER_TOO_LARGE')
      throw new DatasetLimitError(file, `it decompresses past the limit of ${mb(MAX_CHUNK_TEXT_BYTES)}`)
    throw e
  }
  let lines = 0
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1))
    if (++lines > MAX_CHUNK_ROWS)
      throw new DatasetLimitError(file, `more than ${MAX_CHUNK_ROWS.toLocaleString('en-US')} rows`)
  return text
}

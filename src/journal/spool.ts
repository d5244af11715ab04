/**
 * The journal's spool (issue 34): what the writer could not write by the stop (the database damaged,
 * lost or its disk full) is kept in a bounded NDJSON file of ready rows instead of being dropped, in
 * the spool folder (beside the journal), else in the system's temporary folder (another disk, when
 * the journal's is full); the next journal opened with the same folder writes it first (every row's
 * write is idempotent: the conflict rules of rows.ts) and removes the file once written.
 */

import { createHash } from 'node:crypto'
import {
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { JournalRow } from './rows.ts'

/** Most bytes one spool file holds; the rows beyond are counted dropped. */
export const SPOOL_MAX_BYTES = 64 * 1024 * 1024
/** Spool files read at start, at most (oldest first); a later start takes the rest. */
const SPOOL_FILES_READ = 16
const PREFIX = 'journal-spool-'
const TABLES: ReadonlySet<string> = new Set([
  'runs',
  'commands',
  'order_events',
  'fills',
  'funding',
  'transfers',
  'alerts',
  'pnl_snapshots',
  'state',
])

/**
 * The folders a spool may be in: the given one, then one in the temporary folder named for the
 * journal (`key`: its file or URL without the password), so journals never take each other's rows.
 */
export function spoolDirs(dir: string | undefined, key: string): string[] {
  const tmp = join(
    tmpdir(),
    'perpbot-journal-spool',
    createHash('sha256').update(key).digest('hex').slice(0, 16),
  )
  return dir === undefined ? [tmp] : [dir, tmp]
}

export interface SpoolWrite {
  /** Rows kept (the first ones; the rest did not fit or could not be written). */
  kept: number
  path: string | undefined
  error: string | undefined
}

/** Writes `rows` (essential first) to a new spool file; tries each folder in turn. Synchronous: at the stop. */
export function writeSpool(
  dir: string | undefined,
  key: string,
  runId: string,
  rows: readonly JournalRow[],
  maxBytes = SPOOL_MAX_BYTES,
): SpoolWrite {
  let error: string | undefined
  for (const d of spoolDirs(dir, key)) {
    const path = join(d, `${PREFIX}${Date.now()}-${runId.replace(/[^A-Za-z0-9-]/g, '')}.ndjson`)
    let fd: number | undefined
    let kept = 0
    try {
      mkdirSync(d, { recursive: true })
      fd = openSync(`${path}.part`, 'w', 0o600)
      let bytes = 0
      for (const r of rows) {
        const line = `${JSON.stringify(r)}\n`
        bytes += Buffer.byteLength(line)
        if (bytes > maxBytes) break
        writeSync(fd, line)
        kept += 1
      }
      closeSync(fd)
      fd = undefined
      renameSync(`${path}.part`, path)
      return { kept, path, error: undefined }
    } catch (e) {
      error = e instanceof Error ? e.message : String(e)
      if (fd !== undefined) closeSync(fd)
      rmSync(`${path}.part`, { force: true })
    }
  }
  return { kept: 0, path: undefined, error }
}

export interface SpoolRead {
  readonly path: string
  readonly rows: readonly JournalRow[]
}

/** The spool files waiting in these folders (oldest first, bounded), with their rows; unreadable lines are skipped. */
export function readSpools(dir: string | undefined, key: string): SpoolRead[] {
  const out: SpoolRead[] = []
  for (const d of spoolDirs(dir, key)) {
    let names: string[]
    try {
      names = readdirSync(d).filter((n) => n.startsWith(PREFIX) && n.endsWith('.ndjson'))
    } catch {
      continue
    }
    for (const name of names.sort().slice(0, SPOOL_FILES_READ - out.length)) {
      const path = join(d, name)
      try {
        if (statSync(path).size > SPOOL_MAX_BYTES * 2) continue
        const rows: JournalRow[] = []
        for (const line of readFileSync(path, 'utf8').split('\n')) {
          if (line === '') continue
          try {
            const r: unknown = JSON.parse(line)
            if (isRow(r)) rows.push(r)
          } catch {
            // A torn last line (killed while spooling): the rows before it are kept.
          }
        }
        out.push({ path, rows })
      } catch {
        // Unreadable: left where it is for the operator (doctor names it).
      }
    }
  }
  return out
}

/** Removes spool files once their rows are written. */
export function removeSpools(paths: readonly string[]): void {
  for (const p of paths) rmSync(p, { force: true })
}

/** Spool files waiting (for `perpbot doctor`). */
export function pendingSpools(dir: string | undefined, key: string): string[] {
  return spoolDirs(dir, key).flatMap((d) => {
    try {
      return readdirSync(d)
        .filter((n) => n.startsWith(PREFIX) && n.endsWith('.ndjson'))
        .map((n) => join(d, n))
    } catch {
      return []
    }
  })
}

function isRow(r: unknown): r is JournalRow {
  if (typeof r !== 'object' || r === null) return false
  const table: unknown = Reflect.get(r, 'table')
  const row: unknown = Reflect.get(r, 'row')
  return typeof table === 'string' && TABLES.has(table) && typeof row === 'object' && row !== null
}

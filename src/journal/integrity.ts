/**
 * Damage to the journal's database, noticed while the bot runs (issue 34): each probe is cheap (a
 * stat, a 32-byte read, a statfs; PostgreSQL: `select 1`) and says what is wrong, or nothing.
 *
 * SQLite: the file deleted or replaced (a process that keeps writing to an unlinked file loses every
 * row), its WAL's header corrupt (magic, version or checksum: SQLite would treat the log as empty and
 * the rows in it as not written), the disk nearly full. PostgreSQL: the connection lost.
 */
import { closeSync, openSync, readSync, type Stats, statfsSync, statSync } from 'node:fs'
import { dirname } from 'node:path'
import { type Kysely, sql } from 'kysely'
import type { JournalDatabase } from './schema/tables.ts'

/** Free bytes below which the journal's disk counts as full (SQLite needs room for its WAL). */
export const MIN_FREE_BYTES = 4 * 1024 * 1024

export type IntegrityProbe = () => Promise<string | undefined>

/** The SQLite file at `path` as opened now; each probe compares against it. */
export function sqliteIntegrity(path: string, minFreeBytes = MIN_FREE_BYTES): IntegrityProbe {
  let opened: Stats | undefined
  try {
    opened = statSync(path)
  } catch {
    opened = undefined
  }
  return async () => {
    let now: Stats
    try {
      now = statSync(path)
    } catch {
      return `the journal file ${path} is gone (deleted while the bot runs)`
    }
    if (opened !== undefined && (now.ino !== opened.ino || now.dev !== opened.dev))
      return `the journal file ${path} was replaced while the bot runs`
    const wal = walHeaderProblem(`${path}-wal`)
    if (wal !== undefined) return wal
    const free = freeBytes(dirname(path))
    if (free !== undefined && free < minFreeBytes)
      return `the journal's disk is full (${free} bytes free at ${dirname(path)})`
    return undefined
  }
}

/** PostgreSQL: the connection answers within `timeoutMs`. */
export function postgresIntegrity(
  db: Kysely<JournalDatabase>,
  where: string,
  timeoutMs = 2_000,
): IntegrityProbe {
  return async () => {
    let timer: ReturnType<typeof setTimeout> | undefined
    try {
      await Promise.race([
        sql`select 1`.execute(db),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)
          timer.unref()
        }),
      ])
      return undefined
    } catch (e) {
      return `the journal database at ${where} is unreachable (${e instanceof Error ? e.message : String(e)})`
    } finally {
      if (timer !== undefined) clearTimeout(timer)
    }
  }
}

/**
 * What is wrong with a WAL file's 32-byte header, or undefined (no WAL, an empty one, or a sound
 * header). Layout and checksum: https://www.sqlite.org/fileformat2.html#walformat
 */
export function walHeaderProblem(walPath: string): string | undefined {
  let fd: number
  try {
    fd = openSync(walPath, 'r')
  } catch {
    return undefined
  }
  try {
    const h = Buffer.alloc(32)
    const n = readSync(fd, h, 0, 32, 0)
    if (n === 0) return undefined
    if (n < 32) return `the journal's WAL ${walPath} is corrupt (a header of ${n} bytes)`
    const magic = h.readUInt32BE(0)
    if (magic !== 0x377f0682 && magic !== 0x377f0683)
      return `the journal's WAL ${walPath} is corrupt (bad magic number)`
    if (h.readUInt32BE(4) !== 3007000) return `the journal's WAL ${walPath} is corrupt (unknown version)`
    const [s0, s1] = walChecksum(h.subarray(0, 24), magic === 0x377f0683)
    if (s0 !== h.readUInt32BE(24) || s1 !== h.readUInt32BE(28))
      return `the journal's WAL ${walPath} is corrupt (header checksum mismatch)`
    return undefined
  } finally {
    closeSync(fd)
  }
}

/** SQLite's WAL checksum over 32-bit words, big- or little-endian as the magic number says. */
function walChecksum(data: Buffer, bigEndian: boolean): [number, number] {
  let s0 = 0
  let s1 = 0
  for (let i = 0; i < data.length; i += 8) {
    const x0 = bigEndian ? data.readUInt32BE(i) : data.readUInt32LE(i)
    const x1 = bigEndian ? data.readUInt32BE(i + 4) : data.readUInt32LE(i + 4)
    s0 = (s0 + x0 + s1) >>> 0
    s1 = (s1 + x1 + s0) >>> 0
  }
  return [s0, s1]
}

function freeBytes(dir: string): number | undefined {
  try {
    const s = statfsSync(dir)
    return Number(s.bavail) * Number(s.bsize)
  } catch {
    return undefined
  }
}

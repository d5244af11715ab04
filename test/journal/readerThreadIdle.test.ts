/**
 * The journal's reader thread lives only while there is something to read (sqliteReader.ts): it is
 * started by the first read, ended after its idle bound with nothing pending, and started again by
 * the next read, whose answer is the same. A thread never asked for is never started.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { openJournalDb } from '../../src/journal/database.ts'
import { startSqliteReaderThread } from '../../src/journal/sqlite/sqliteReader.ts'

const until = async (ok: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 10))
}

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

describe("the journal's reader thread", () => {
  it('starts at the first read, ends when idle, and starts again for the next read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-reader-idle-'))
    dirs.push(dir)
    const path = join(dir, 'journal.sqlite')
    // The database with its schema (no threads of its own).
    const db = await openJournalDb({ kind: 'sqlite', path }, { readerThread: false, writerThread: false })
    const reader = startSqliteReaderThread(path, 50)
    expect(reader.stats()).toMatchObject({ starts: 0, running: false })
    const ask = () => reader.all<{ n: number }>('select 1 + ? as n', [1])
    expect(await ask()).toEqual([{ n: 2 }])
    expect(reader.stats()).toMatchObject({ starts: 1, running: true })
    await until(() => !reader.stats().running)
    expect(reader.stats()).toMatchObject({ starts: 1, running: false })
    const both = await Promise.all([ask(), ask()])
    expect(both).toEqual([[{ n: 2 }], [{ n: 2 }]])
    expect(reader.stats()).toMatchObject({ queries: 3, rows: 3, starts: 2, running: true })
    await reader.close()
    expect(reader.stats().running).toBe(false)
    await db.close()
  })
})

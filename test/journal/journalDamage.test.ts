/**
 * Issue 34, point 4: damage to the journal is noticed within seconds, not at the next start. A
 * SQLite journal whose file is deleted mid-run, or whose WAL header is corrupted, turns the writer
 * `failing` with the reason within one check (`journal.checkMs`) even with nothing to write; what
 * could not be written is held (bounded) and, at the close, spooled; the next journal opened at the
 * same place writes the spool first and removes it.
 */
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { systemClock } from '../../src/clock.ts'
import { BatchWriter } from '../../src/journal/batchWriter.ts'
import { openJournalDb } from '../../src/journal/database.ts'
import { sqliteIntegrity, walHeaderProblem } from '../../src/journal/integrity.ts'
import { createJournal, type Journal } from '../../src/journal/journal.ts'
import { JournalSettings } from '../../src/journal/settings.ts'
import { pendingSpools } from '../../src/journal/spool.ts'
import { journalIntegrityLine } from '../../src/preflight/journalCheck.ts'

const settings = JournalSettings.parse({ flushMs: 20, checkMs: 100 })

async function open(path: string): Promise<Journal> {
  const db = await openJournalDb({ kind: 'sqlite', path })
  return createJournal({
    db,
    clock: systemClock,
    settings,
    run: { version: 't', mode: 'live', configHash: 'h' },
  })
}

const command = (ts: number) => ({ ts, kind: 'cancelAll', items: [], outcome: 'ok' as const, itemCount: 1 })

async function commands(path: string): Promise<number> {
  const db = await openJournalDb({ kind: 'sqlite', path }, { readonly: true })
  try {
    const rows = await db.db.selectFrom('commands').select('ts').execute()
    return rows.length
  } finally {
    await db.close()
  }
}

describe('journal damage is noticed within seconds', () => {
  it('the file deleted mid-run: failing with the reason, commands spooled at the close and written by the next start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-damage-'))
    const path = join(dir, 'journal.sqlite')
    const j = await open(path)
    j.command(command(1))
    await j.flush()
    expect(j.stats().state).toBe('ok')
    for (const f of [path, `${path}-wal`, `${path}-shm`]) rmSync(f, { force: true })
    await vi.waitFor(() => expect(j.stats().state).toBe('failing'), { timeout: 5_000, interval: 20 })
    expect(j.stats().lastError).toMatch(/journal file .* is gone/)
    for (let i = 0; i < 87; i++) j.command(command(100 + i))
    expect(j.stats().depth).toBeGreaterThanOrEqual(87)
    const closed = await j.close('test over')
    expect(closed.droppedTotal).toBe(0)
    expect(closed.spooledRows).toBeGreaterThanOrEqual(88)
    expect(pendingSpools(`${path}-spool`, path)).toHaveLength(1)

    const next = await open(path)
    await vi.waitFor(() => expect(next.stats().replayedRows).toBeGreaterThanOrEqual(88), {
      timeout: 5_000,
      interval: 20,
    })
    expect(pendingSpools(`${path}-spool`, path)).toEqual([])
    await next.close('second run over')
    expect(await commands(path)).toBe(87)
    rmSync(dir, { recursive: true, force: true })
  })

  it('a corrupt WAL header: failing with the reason; nothing more is written into it, the rows are spooled', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-damage-'))
    const path = join(dir, 'journal.sqlite')
    const j = await open(path)
    j.command(command(1))
    await j.flush()
    const wal = `${path}-wal`
    expect(existsSync(wal)).toBe(true)
    expect(walHeaderProblem(wal)).toBeUndefined()
    const fd = openSync(wal, 'r+')
    writeSync(fd, Buffer.from([0xde, 0xad, 0xbe, 0xef]), 0, 4, 8)
    closeSync(fd)
    expect(walHeaderProblem(wal)).toMatch(/checksum/)
    await vi.waitFor(() => expect(j.stats().state).toBe('failing'), { timeout: 5_000, interval: 20 })
    expect(j.stats().lastError).toMatch(/WAL .* corrupt/)
    j.command(command(2))
    expect((await j.close('test over')).spooledRows).toBeGreaterThanOrEqual(2)
    rmSync(dir, { recursive: true, force: true })
  })

  it('perpbot doctor checks the journal: missing, sound, a corrupt WAL, a damaged file, a spool waiting', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-doctor-'))
    const path = join(dir, 'journal.sqlite')
    const target = { kind: 'sqlite' as const, path }
    expect(await journalIntegrityLine(target)).toMatchObject({ status: 'ok', detail: /no journal/ })
    const j = await open(path)
    j.command(command(1))
    await j.flush()
    expect(await journalIntegrityLine(target)).toMatchObject({ status: 'ok', detail: /sound/ })
    const fd = openSync(`${path}-wal`, 'r+')
    writeSync(fd, Buffer.from([1, 2, 3, 4]), 0, 4, 0)
    closeSync(fd)
    expect(await journalIntegrityLine(target)).toMatchObject({ status: 'fail', detail: /WAL .* corrupt/ })
    await j.close('over')
    rmSync(`${path}-wal`, { force: true })
    // Garbage over the second page: the file opens, its pages do not check.
    const f2 = openSync(path, 'r+')
    writeSync(f2, Buffer.alloc(4096, 0x5a), 0, 4096, 4096)
    closeSync(f2)
    expect((await journalIntegrityLine(target)).status).toBe('fail')
    expect(await journalIntegrityLine(undefined)).toMatchObject({ status: 'skip' })
    rmSync(dir, { recursive: true, force: true })
  })

  it('a full disk is damage too; a held writer keeps its rows and writes them when the hold lifts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-full-'))
    const path = join(dir, 'journal.sqlite')
    const j = await open(path)
    await j.flush()
    // Whatever this disk has free is too little when the bound is all the bytes there are.
    expect(await sqliteIntegrity(path, Number.MAX_SAFE_INTEGER)()).toMatch(/disk is full/)
    expect(await sqliteIntegrity(path)()).toBeUndefined()
    await j.close('over')
    const written: number[] = []
    const states: string[] = []
    const w = new BatchWriter<number>({
      clock: systemClock,
      flushMs: 10,
      batchRows: 10,
      capacity: 100,
      write: async (items) => void written.push(...items),
      category: () => 'commands',
      isBulk: () => true,
      timeOf: (n) => n,
      onStateChange: (s) => void states.push(s),
    })
    w.hold('the journal file is gone')
    expect(states).toEqual(['failing'])
    expect(w.stats().lastError).toContain('gone')
    for (let i = 0; i < 5; i++) w.push(i)
    await w.flush()
    expect(written).toEqual([])
    w.hold(undefined)
    await vi.waitFor(() => expect(written).toEqual([0, 1, 2, 3, 4]), { timeout: 5_000, interval: 10 })
    expect(states).toEqual(['failing', 'ok'])
    await w.close()
    rmSync(dir, { recursive: true, force: true })
  })
})

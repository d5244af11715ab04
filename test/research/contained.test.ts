/**
 * Research inputs contained (issue 34.5): a dataset reader opens only regular files inside the dataset
 * folder, within size, decompression and row limits; `download` refuses windows in the future or
 * beyond bounds (exit 2) and stops cleanly on SIGTERM/SIGINT.
 */
import { execFileSync, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { DatasetLimitError, MAX_CHUNK_ROWS } from '../../src/research/dataset/containedFiles.ts'
import { chunkPath, DatasetError } from '../../src/research/dataset/format.ts'
import { DatasetStore } from '../../src/research/dataset/store.ts'
import { parseTimeArg } from '../../src/research/timeArg.ts'
import { perpbot } from '../cli/perpbotCli.ts'
import { perpbotNodeArgs } from '../helpers/perpbotProcess.ts'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'perpbot-contained-'))
  dirs.push(d)
  return d
}

const HOUR = Date.UTC(2026, 0, 5, 0)
const PATH = chunkPath('trades', 'BTC-USDC', HOUR)

/** A dataset with one trades chunk listed; `place` puts whatever file (or link) at its path. */
function datasetWith(place: (file: string) => void, rows = 1, bytes = 10): DatasetStore {
  const dir = tempDir()
  const store = DatasetStore.openOrCreate(dir, 'test', 1_000)
  store.writeChunk(PATH, { kind: 'trades', symbol: 'BTC-USDC', from: HOUR, to: HOUR + 3_600_000 }, [
    { t: HOUR, p: '1', q: '1' },
  ])
  const file = join(dir, PATH)
  rmSync(file)
  place(file)
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'))
  manifest.chunks[PATH] = { ...manifest.chunks[PATH], rows, bytes }
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest))
  return DatasetStore.open(dir)
}

const refusal = (store: DatasetStore): unknown => {
  try {
    store.readChunk(PATH, 'trades')
  } catch (e) {
    return e
  }
  return undefined
}

describe('dataset files contained', () => {
  it('refuses a chunk linked to /dev/zero at once', () => {
    const t0 = performance.now()
    const e = refusal(datasetWith((f) => symlinkSync('/dev/zero', f), 1, 1e9))
    expect(e).toBeInstanceOf(DatasetLimitError)
    expect(String(e)).toContain('symbolic link')
    expect(performance.now() - t0).toBeLessThan(1_000)
  })

  it('refuses a FIFO without waiting for a writer', () => {
    const e = refusal(datasetWith((f) => execFileSync('mkfifo', [f])))
    expect(e).toBeInstanceOf(DatasetLimitError)
    expect(String(e)).toContain('not a regular file')
  })

  it('refuses a file reached through a linked folder outside the dataset', () => {
    const outside = tempDir()
    const store = datasetWith(() => undefined)
    const good = gzipSync('{"t":1767571200000,"p":"1","q":"1"}\n')
    mkdirSync(join(outside, 'BTC-USDC'), { recursive: true })
    writeFileSync(join(outside, 'BTC-USDC', PATH.split('/')[2] ?? ''), good)
    rmSync(join(store.dir, 'trades'), { recursive: true })
    symlinkSync(outside, join(store.dir, 'trades'))
    const e = refusal(DatasetStore.open(store.dir))
    expect(e).toBeInstanceOf(DatasetLimitError)
    expect(String(e)).toContain('outside the dataset folder')
  })

  it('refuses a manifest naming a path out of the folder', () => {
    const dir = tempDir()
    DatasetStore.openOrCreate(dir, 'test', 1_000)
    const m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'))
    m.chunks['../../etc/x.ndjson.gz'] = { kind: 'trades', symbol: 'X', from: 0, to: 1, rows: 1, bytes: 1 }
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(m))
    expect(() => DatasetStore.open(dir)).toThrow(DatasetError)
    expect(() => DatasetStore.open(dir)).toThrow(/not a .* manifest/)
    // A symbol of dots cannot make a path that climbs out either.
    expect(chunkPath('trades', '..', HOUR)).toMatch(/^trades\/_\.\//)
  })

  it('refuses a manifest that is a link or a FIFO', () => {
    const linked = tempDir()
    symlinkSync('/dev/zero', join(linked, 'manifest.json'))
    expect(() => DatasetStore.open(linked)).toThrow(/symbolic link/)
    const fifo = tempDir()
    execFileSync('mkfifo', [join(fifo, 'manifest.json')])
    expect(() => DatasetStore.open(fifo)).toThrow(/not a regular file/)
  })

  it('stops a small file of too many rows before parsing them', () => {
    const gz = gzipSync('{}\n'.repeat(MAX_CHUNK_ROWS + 1))
    expect(gz.length).toBeLessThan(100_000)
    const e = refusal(datasetWith((f) => writeFileSync(f, gz), 1, gz.length))
    expect(e).toBeInstanceOf(DatasetLimitError)
    expect(String(e)).toContain('more than 1,000,000 rows')
  })

  it('stops decompression at its bound', () => {
    const gz = gzipSync(Buffer.alloc(129 * 1024 * 1024, 0x20))
    const e = refusal(datasetWith((f) => writeFileSync(f, gz), 1, gz.length))
    expect(e).toBeInstanceOf(DatasetLimitError)
    expect(String(e)).toContain('decompresses past the limit of 128 MB')
  })

  it('refuses a manifest listing more rows than the limit without reading the file', () => {
    const e = refusal(datasetWith((f) => symlinkSync('/dev/zero', f), MAX_CHUNK_ROWS + 1))
    expect(String(e)).toContain('over the limit')
  })
})

describe('download windows', () => {
  it('a duration too long for a date is a clear error', () => {
    expect(() => parseTimeArg('99999999999999999999d', Date.now(), '--from')).toThrow(/before 1970/)
    expect(() => parseTimeArg('+275760-09-13', Date.now(), '--from')).toThrow(/ISO time/)
  })

  it.each([
    [['--from', '2999-01-01', '--to', '2999-01-02'], 'ends in the future'],
    [['--from', '99999999999999999999d'], 'before 1970'],
    [['--from', '2000-01-01', '--to', '2002-01-01'], 'at most 366 per download'],
    [['--from', '1h', '--to', '2h'], '--from must be before --to'],
  ])('refuses %j with exit 2 before reading anything', async (args, message) => {
    const out = join(tempDir(), 'ds')
    const r = await perpbot(['download', '--out', out, ...args])
    expect(r.code).toBe(2)
    expect(r.err).toContain(message)
    expect(() => readFileSync(join(out, 'manifest.json'))).toThrow()
  })

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'stops on %s after the chunk in hand, keeps what it saved (exit 1)',
    async (signal) => {
      const out = join(tempDir(), 'ds')
      const child = spawn(
        process.execPath,
        perpbotNodeArgs(['download', '--out', out, '--from', '30d', '--mock-instruments', '2']),
        { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PERPBOT_BIN: '' } },
      )
      let stderr = ''
      child.stderr.setEncoding('utf8')
      child.stderr.on('data', (c: string) => {
        stderr += c
      })
      // The first chunk in the manifest: chunks are being written (counted, not timed: a plain
      // progress line comes only every 10 s, and an idle machine may finish before it).
      await vi.waitFor(
        () => {
          const manifest: unknown = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'))
          expect(manifest).toMatchObject({ chunks: expect.any(Object) })
          expect(Object.keys((manifest as { chunks: object }).chunks).length).toBeGreaterThan(0)
        },
        { timeout: 30_000, interval: 10 },
      )
      child.kill(signal)
      const t0 = Date.now()
      const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)))
      expect(Date.now() - t0).toBeLessThan(10_000)
      expect(code).toBe(1)
      expect(stderr).toContain('interrupted')
      const store = DatasetStore.open(out)
      expect(Object.keys(store.manifest.chunks).length).toBeGreaterThan(0)
    },
    60_000,
  )
})

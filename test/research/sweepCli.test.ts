/** `perpbot sweep` refuses a bad grid before anything runs (exit 2); a replay too thin to fill says so. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { thinDataNote } from '../../src/cli/research/simulate.ts'
import { DatasetStore } from '../../src/research/dataset/store.ts'
import { perpbot } from '../cli/perpbotCli.ts'

const dir = mkdtempSync(join(tmpdir(), 'perpbot-sweepcli-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
// An empty dataset: a grid checked before the data would fail on the data instead.
DatasetStore.openOrCreate(dir, 'test', 1_000)

describe('perpbot sweep: a bad grid', () => {
  it.each([
    [['--grid', 'halfSpredBps=5,10'], 'Unrecognized key: "halfSpredBps"'],
    [['--grid', 'halfSpreadBps=0,10'], 'halfSpreadBps'],
    [['--grid', '__proto__=1'], '"__proto__" is not a parameter name'],
    [['--grid', 'gamma=5', '--strategy', 'index-peg'], 'Unrecognized key: "gamma"'],
    // A whole-bps parameter searched without a step: refused before the search, not mid-way.
    [['--search', 'random', '--range', 'halfSpreadBps=2:20'], 'whole number of basis points'],
  ])('%j exits 2 with one line, before reading the data', async (args, message) => {
    const t0 = performance.now()
    const r = await perpbot(['sweep', '--data', dir, '--workers', '0', ...args])
    expect(r.code).toBe(2)
    expect(r.err).toContain(message)
    expect(r.err.split('\n')).toHaveLength(1)
    expect(performance.now() - t0).toBeLessThan(5_000)
  })

  it('accepts a new strategy’s own keys', async () => {
    const r = await perpbot([
      'sweep',
      '--data',
      dir,
      '--workers',
      '0',
      '--strategy',
      'avellaneda-stoikov',
      '--grid',
      'gamma=5,40',
    ])
    // Past the grid check: the empty dataset is what stops it.
    expect(r.err).not.toContain('--grid')
    expect(r.code).toBe(2)
  })
})

describe('a replay too thin to fill', () => {
  it('says why there were no fills', () => {
    expect(thinDataNote(4, 2, 2 * 60_000, 0)).toMatch(/too thin to fill .* 1\.00 a minute each/)
    expect(thinDataNote(4, 2, 2 * 60_000, 3)).toBeUndefined()
    expect(thinDataNote(60 * 2 * 10, 2, 10 * 60_000, 0)).toBeUndefined()
  })
})

/**
 * `record` and `download` agree (issue 39.6): the same embedded mock instruments by default, and the
 * counts reported once, in the summary line on stdout.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { DatasetStore } from '../../src/research/dataset/store.ts'
import { perpbot } from '../cli/perpbotCli.ts'

const root = mkdtempSync(join(tmpdir(), 'perpbot-recordcli-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

describe('record and download', { timeout: 60_000 }, () => {
  it('list the same instruments and count rows once, on stdout', async () => {
    const rec = join(root, 'rec')
    const r = await perpbot(['record', '--out', rec, '--duration', '2s', '--flush-s', '1', '--speed', '20'])
    expect(r.code).toBe(0)
    const summary = r.out.split('\n').filter((l) => l !== '')
    expect(summary).toHaveLength(1)
    expect(summary[0]).toMatch(/^recorded \d+ rows/)
    expect(r.err).not.toMatch(/\d+ rows/)
    const dl = join(root, 'dl')
    const d = await perpbot([
      'download',
      '--out',
      dl,
      '--from',
      '2026-11-30T00:00:00Z',
      '--to',
      '2026-11-30T00:01:00Z',
      '--what',
      'funding',
    ])
    expect(d.code).toBe(0)
    expect(d.out.split('\n').filter((l) => / rows/.test(l))).toHaveLength(1)
    expect(d.err).not.toMatch(/\d+ rows/)
    const symbols = (dir: string) => Object.keys(DatasetStore.open(dir).manifest.instruments).sort()
    expect(symbols(rec)).toHaveLength(10)
    expect(symbols(rec)).toEqual(symbols(dl))
  })
})

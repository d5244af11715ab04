/**
 * Rooms stay small enough to read: no folder of src/ holds more than 20 files directly. The endpoint
 * folders (one file per venue endpoint, bound in one place) are the exception the issue names.
 */
import { readdirSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(import.meta.dirname, '../..')
const MOST = 20
/** One file per endpoint: their count is the venue's, not a design choice. */
const ENDPOINT_FOLDERS = new Set(['src/perps/client'])

function crowded(dir: string, out: string[]): string[] {
  const entries = readdirSync(dir, { withFileTypes: true })
  const files = entries.filter((e) => e.isFile()).length
  const name = relative(ROOT, dir)
  if (files > MOST && !ENDPOINT_FOLDERS.has(name)) out.push(`${name}: ${files} files`)
  for (const e of entries) if (e.isDirectory()) crowded(join(dir, e.name), out)
  return out
}

describe('the folders of src/', () => {
  it(`hold at most ${MOST} files each (endpoint folders excepted)`, () => {
    expect(crowded(join(ROOT, 'src'), [])).toEqual([])
  })

  it('the check sees a crowded folder (the endpoint folder, had it no exception)', () => {
    const client = readdirSync(join(ROOT, 'src/perps/client'), { withFileTypes: true }).filter((e) =>
      e.isFile(),
    )
    expect(client.length).toBeGreaterThan(MOST)
  })
})

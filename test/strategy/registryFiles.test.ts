/**
 * The strategies folder reads only regular files, and no module can hold the start: a FIFO named like
 * a module is refused at once (importing it would block forever), and a module whose import never
 * settles is refused after the import timeout.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { loadStrategies, StrategyLoadError } from '../../src/strategy/registry.ts'

const dirs: string[] = []
const folder = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'perpbot-strategies-'))
  dirs.push(d)
  return d
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

describe('strategiesDir reads only regular files, within a bound', () => {
  it('refuses a FIFO named like a module at once, naming it', async () => {
    const dir = folder()
    const fifo = join(dir, 'evil.ts')
    const made = spawnSync('mkfifo', [fifo])
    if (made.status !== 0) throw new Error(`mkfifo failed: ${made.stderr}`)
    const t0 = Date.now()
    const err = await loadStrategies({ directory: dir, includeShipped: false }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(StrategyLoadError)
    expect(String((err as Error).message)).toContain('evil.ts: not a regular file')
    // At once, not after the 10 s import timeout (room for a loaded machine).
    expect(Date.now() - t0).toBeLessThan(8_000)
  })

  it('refuses a module whose import never settles after the timeout', async () => {
    const dir = folder()
    writeFileSync(join(dir, 'stuck.mjs'), 'await new Promise(() => {})\nexport const strategy = {}\n')
    const err = await loadStrategies({ directory: dir, includeShipped: false, importTimeoutMs: 200 }).catch(
      (e: unknown) => e,
    )
    expect(err).toBeInstanceOf(StrategyLoadError)
    expect(String((err as Error).message)).toContain('did not load within 200 ms')
  })
})

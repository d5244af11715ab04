/**
 * Issue 34, point 8: the smaller items, each with a clear message and the right exit code.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseFleetRedisUrl } from '../../src/fleet/redisConnection.ts'
import { expandGrid, parseAxis } from '../../src/research/sweep/grid.ts'
import { perpbotNodeArgs } from '../helpers/perpbotProcess.ts'
import { perpbot } from './perpbotCli.ts'

function cli(args: string[]): Promise<{ code: number | null; err: string }> {
  const child = spawn(process.execPath, perpbotNodeArgs(args), {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, PERPBOT_BIN: '' },
  })
  let err = ''
  child.stderr.setEncoding('utf8')
  child.stderr.on('data', (c: string) => {
    err += c
  })
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, err })))
}

describe('smaller hostile items (issue 34)', () => {
  it('a strategy whose top-level await never settles: config --explain exits 2 naming it (was 13, silent)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-tla-'))
    writeFileSync(join(dir, 'stuck.mjs'), 'await new Promise(() => {})\nexport const strategy = {}\n')
    const overlay = join(dir, 'overlay.json')
    // A 2-s bound instead of the 10-s default: the refusal is the same, the test waits less (the
    // shipped listing loads under the same bound, so it stays a hang bound under a CPU burner).
    writeFileSync(overlay, JSON.stringify({ strategiesDir: dir, strategyImportTimeoutMs: 2_000 }))
    const r = await cli(['config', '--explain', '--config', overlay])
    expect(r.code).toBe(2)
    expect(r.err).toMatch(/stuck\.mjs: the strategy module did not load within 2000 ms/)
    expect(r.err).not.toMatch(/\n\s+at /)
  }, 90_000)

  it('status --fleet with a non-numeric Redis database: exit 2, one line, no stack', async () => {
    expect(() => parseFleetRedisUrl('redis://127.0.0.1:6379/abc')).toThrow(/invalid fleet Redis address/)
    expect(parseFleetRedisUrl('redis://127.0.0.1:6379/3').pathname).toBe('/3')
    const r = await perpbot(['status', '--fleet'], {
      FLEET_REDIS_URL: 'redis://:pw-secret-123@127.0.0.1:1/abc',
      FLEET_ACCOUNTS: 'a1',
      FLEET_EGRESS_ID: 'nat-1',
    })
    expect(r.code).toBe(2)
    expect(r.err).toContain('the database after the host must be a number')
    expect(r.err).not.toContain('pw-secret-123')
    expect(r.err).not.toMatch(/\n\s+at /)
  })

  it('sweep: a bad grid (duplicate, __proto__, too many points) is a usage error, exit 2', async () => {
    expect(() => parseAxis('__proto__=1,2')).toThrow(/not a parameter name/)
    expect(() => parseAxis('constructor=1')).toThrow(/not a parameter name/)
    expect(() => expandGrid([parseAxis('a=1,2'), parseAxis('a=3')])).toThrow(/given twice/)
    const many = Array.from({ length: 101 }, (_, i) => i).join(',')
    expect(() => expandGrid([parseAxis(`a=${many}`), parseAxis(`b=${many}`)])).toThrow(/combinations/)
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-sweep-'))
    for (const grid of [
      ['--grid', '__proto__=1'],
      ['--grid', 'a=1', '--grid', 'a=2'],
    ]) {
      const r = await perpbot(['sweep', '--data', dir, ...grid])
      expect(r.code, grid.join(' ')).toBe(2)
    }
  })
})

describe('what a command prints passes the one scrubber (issue 34)', () => {
  it('a secret of the environment that shows up in config --explain is scrubbed on stdout', async () => {
    const token = 'ops-token-visible-in-a-path-0123'
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-scrub-'))
    const overlay = join(dir, 'overlay.json')
    writeFileSync(overlay, JSON.stringify({ ops: { stateDir: join(dir, token) } }))
    const r = await perpbot(['config', '--explain', '--config', overlay], { PERPBOT_OPS_TOKEN: token })
    expect(r.code).toBe(0)
    expect(r.out).toContain('stateDir')
    expect(r.out).not.toContain(token)
  })
})

import { EventEmitter } from 'node:events'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { main } from '../../src/cli/main.ts'
import { abortOnSignals } from '../../src/cli/signals.ts'
import { perpbot } from './perpbotCli.ts'

describe('perpbot simulate flags', () => {
  it('--help prints the usage with every flag and exits 0', async () => {
    const r = await perpbot(['simulate', '--help'])
    expect(r.code).toBe(0)
    for (const flag of [
      '--strategy',
      '--instruments',
      '--hours',
      '--scenario',
      '--seed',
      '--out',
      '--streams',
    ])
      expect(r.out).toContain(flag)
  })

  it('is listed in the top-level usage', async () => {
    expect((await perpbot(['--help'])).out).toContain('simulate')
  })

  it.each([
    [['--no-such-flag'], '--no-such-flag'],
    [['--instruments', '0'], '--instruments must be an integer from 1 to 500'],
    [['--instruments', 'ten'], "got 'ten'"],
    [['--hours', '0'], '--hours must be a number above 0'],
    [['--hours', '1e9'], 'at most 744'],
    [['--seed', '1.5'], '--seed must be an integer'],
    [['--scenario', 'moon'], "unknown scenario 'moon' (known: calm,"],
    [
      ['--strategy', 'nope'],
      "unknown strategy 'nope' (known: avellaneda-stoikov, catalogue-bias, index-peg, vol-spread)",
    ],
    [['--set', 'novalue'], '--set expects KEY=VALUE'],
    [['--out', ' '], '--out must name a file'],
    [['--streams', '--data', '/nonexistent', '--engine', 'fast'], '--streams needs --engine bot'],
  ])('exits 2 with a clear message for %j', async (args, message) => {
    const r = await perpbot(['simulate', ...args])
    expect(r.code).toBe(2)
    expect(r.err).toContain(message)
    expect(r.out).toBe('')
  })
})

describe('perpbot simulate --out and stopping early', () => {
  it('refuses a report path in a missing folder before the run (exit 2)', async () => {
    const t0 = Date.now()
    const r = await perpbot(['simulate', '--out', '/nonexistent-perpbot-dir/report.html'])
    expect(r.code).toBe(2)
    expect(r.err).toContain('/nonexistent-perpbot-dir does not exist')
    expect(Date.now() - t0).toBeLessThan(5_000)
  })

  it('refuses a folder as the report file', async () => {
    const r = await perpbot(['simulate', '--out', tmpdir()])
    expect(r.code).toBe(2)
    expect(r.err).toContain('is a folder')
  })

  it('a stop signal mid-run writes a partial report that says so (exit 1)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-sim-'))
    const out = join(dir, 'report.html')
    // Stopped as SIGTERM would (src/cli/signals.ts), here before the first step: the run ends at
    // once and its report is still written.
    const abort = new AbortController()
    abort.abort()
    const lines: string[] = []
    const errs: string[] = []
    try {
      const code = await main(['simulate', '--hours', '6', '--instruments', '1', '--out', out], {
        env: {},
        stdout: (l) => void lines.push(l),
        stderr: (l) => void errs.push(l),
        configDir: 'config',
        isTty: false,
        signal: abort.signal,
      })
      expect(code).toBe(1)
      expect(lines.join('\n'), errs.join('\n')).toMatch(/report \(partial: stopped after [\d.]+ of 6 h\)/)
      expect(lines.join('\n')).toContain('stopped after')
      const html = readFileSync(out, 'utf8')
      expect(html).toContain('id="partial"')
      expect(html).toContain('<h2>Summary</h2>')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 30_000)
})

describe('stop signals for commands without their own shutdown', () => {
  it('the first aborts the command, a second exits with the signal code', () => {
    const target = new EventEmitter()
    const abort = new AbortController()
    const exits: number[] = []
    abortOnSignals(abort, target, (c) => void exits.push(c))
    target.emit('SIGTERM')
    expect(abort.signal.aborted).toBe(true)
    expect(exits).toEqual([])
    target.emit('SIGTERM')
    expect(exits).toEqual([143])
  })
})

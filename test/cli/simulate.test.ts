import { describe, expect, it } from 'vitest'
import { main } from '../../src/cli/main.ts'

async function perpbot(argv: string[]) {
  const out: string[] = []
  const err: string[] = []
  const code = await main(argv, {
    env: {},
    stdout: (l) => void out.push(l),
    stderr: (l) => void err.push(l),
    configDir: 'config',
    isTty: false,
    signal: new AbortController().signal,
  })
  return { code, out: out.join('\n'), err: err.join('\n') }
}

describe('perpbot simulate flags', () => {
  it('--help prints the usage with every flag and exits 0', async () => {
    const r = await perpbot(['simulate', '--help'])
    expect(r.code).toBe(0)
    for (const flag of ['--strategy', '--instruments', '--hours', '--scenario', '--seed', '--out'])
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
    [['--strategy', 'nope'], "unknown strategy 'nope' (known: catalogue-bias, index-peg, vol-spread)"],
    [['--set', 'novalue'], '--set expects KEY=VALUE'],
    [['--out', ' '], '--out must name a file'],
  ])('exits 2 with a clear message for %j', async (args, message) => {
    const r = await perpbot(['simulate', ...args])
    expect(r.code).toBe(2)
    expect(r.err).toContain(message)
    expect(r.out).toBe('')
  })
})

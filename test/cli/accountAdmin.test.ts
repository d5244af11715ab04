/**
 * Issue 35, point 7: the owner's account commands as rehearsals against the embedded mock (nothing
 * leaves 127.0.0.1): withdraw shows the fee and asks first (a "no" sends nothing; without a terminal
 * it needs --yes), revoke-proxy revokes, account-stats reads, each with --help.
 */
import { describe, expect, it } from 'vitest'
import { main } from '../../src/cli/main.ts'

function ctx(argv: string[], confirm?: (q: string) => Promise<boolean>) {
  const out: string[] = []
  const err: string[] = []
  return {
    out,
    err,
    run: () =>
      main(argv, {
        env: {},
        stdout: (l) => void out.push(l),
        stderr: (l) => void err.push(l),
        configDir: 'config',
        isTty: false,
        signal: new AbortController().signal,
        ...(confirm === undefined ? {} : { confirm }),
      }),
  }
}

describe('perpbot withdraw / revoke-proxy / account-stats (rehearsals)', () => {
  it('withdraw: shows the fee, asks, and sends only on yes', async () => {
    const asked: string[] = []
    const no = ctx(['withdraw', '--amount', '25'], async (q) => {
      asked.push(q)
      return false
    })
    expect(await no.run()).toBe(1)
    expect(asked).toEqual([
      expect.stringMatching(/^withdraw 25 pUSD \(fee [\d.]+ pUSD\) to 0x[0-9a-fA-F]{40}\?$/),
    ])
    expect(no.err.at(-1)).toBe('not withdrawn')
    expect(no.out).toEqual([])
    // No terminal and no --yes: refused before anything is asked or sent.
    const blind = ctx(['withdraw', '--amount', '25'])
    expect(await blind.run()).toBe(2)
    expect(blind.err.join('\n')).toMatch(/pass --yes/)
    const yes = ctx(['withdraw', '--amount', '25', '--yes'])
    expect(await yes.run()).toBe(0)
    expect(yes.err.join('\n')).toMatch(/withdrawal fee: [\d.]+ pUSD/)
    expect(yes.out.join('\n')).toMatch(
      /^withdrawal \d+ requested: 25 pUSD to 0x[0-9a-fA-F]{40}, fee [\d.]+ pUSD$/,
    )
  }, 60_000)

  it('withdraw: a bad amount is a usage error (exit 2), and --help answers', async () => {
    expect(await ctx(['withdraw', '--amount', '1.1234567']).run()).toBe(2)
    const h = ctx(['withdraw', '--help'])
    expect(await h.run()).toBe(0)
    expect(h.out.join('\n')).toMatch(/usage: perpbot withdraw/)
  })

  it('revoke-proxy and account-stats', async () => {
    const r = ctx(['revoke-proxy', '--proxy', '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC', '--yes'])
    expect(await r.run()).toBe(0)
    expect(r.out).toEqual(['proxy 0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC revoked'])
    const s = ctx(['account-stats'])
    expect(await s.run()).toBe(0)
    expect(s.out[0]).toMatch(/^7-day volume: [\d.]+ USD \(taker [\d.]+ USD, maker [\d.]+ USD\)$/)
  }, 60_000)
})

/**
 * The command-line side of the commands: every one has `--help` (exit 0, naming `--bot`, and
 * `--instrument` where it takes one), refuses unknown options (exit 2), and says clearly when no bot
 * answers (exit 2); `perpbot --help` lists them.
 */
import { describe, expect, it } from 'vitest'
import { perpbot } from './perpbotCli.ts'

const COMMANDS = ['pause', 'resume', 'cancel-all', 'flatten', 'reload', 'stop'] as const
const SCOPED = new Set(['pause', 'resume', 'flatten'])

describe('commands to a running bot, on the command line', () => {
  it.each(COMMANDS)('%s --help prints its usage and exits 0', async (c) => {
    const r = await perpbot([c, '--help'])
    expect(r.code).toBe(0)
    expect(r.out).toMatch(new RegExp(`^usage: perpbot ${c} \\[--bot URL\\]`))
    expect(r.out.includes('--instrument')).toBe(SCOPED.has(c))
    expect((await perpbot(['--help'])).out).toMatch(new RegExp(`^  ${c} +\\S`, 'm'))
  })

  it('refuses an unknown option and an instrument where none is taken (exit 2)', async () => {
    expect((await perpbot(['pause', '--now'])).code).toBe(2)
    expect((await perpbot(['stop', '--instrument', 'BTC-USDC'])).code).toBe(2)
  })

  it('says so when no bot answers (exit 2)', async () => {
    const r = await perpbot(['pause', '--bot', 'http://127.0.0.1:9'])
    expect(r.code).toBe(2)
    expect(r.err).toBe(
      "perpbot pause: no running bot answers at http://127.0.0.1:9 (start one with `npm start`, or name it with --bot URL) (see 'perpbot pause --help')",
    )
  })
})

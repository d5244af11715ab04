/**
 * `perpbot run --paper` and `perpbot report --paper` at the command line: help, flags that cannot go
 * with it (exit 2), a venue whose public feed is unreachable (exit 1, the address named, nothing
 * started), and the paper journal read by `report --paper`.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { perpbot } from '../cli/perpbotCli.ts'

const stateDir = mkdtempSync(join(tmpdir(), 'perpbot-paper-cli-'))
afterAll(() => rmSync(stateDir, { recursive: true, force: true }))
const config = join(stateDir, 'paper.json')
writeFileSync(config, JSON.stringify({ ops: { stateDir } }))

describe('run --paper at the command line', () => {
  it('--help describes paper trading', async () => {
    const r = await perpbot(['run', '--paper', '--help'])
    expect(r.code).toBe(0)
    expect(r.out).toContain('--paper')
    expect(r.out).toMatch(/no keys/)
    expect(r.out).toMatch(/nothing signed reaches the venue/)
  })

  it.each([['--live'], ['--scenario', 'calm'], ['--speed', '5'], ['--record', 'x']])(
    'refuses --paper with %s (exit 2)',
    async (...flag) => {
      const r = await perpbot(['run', '--paper', ...flag])
      expect(r.code).toBe(2)
      expect(r.err).toContain(`--paper cannot be combined with ${flag[0]}`)
    },
  )

  it('an unreachable venue: exit 1 naming the address, nothing started', async () => {
    const r = await perpbot(
      ['run', '--paper', '--config', config, '--ops-port', '0', '--log-level', 'error'],
      {
        PERPS_URL: 'http://127.0.0.1:9',
        PERPS_WS_URL: 'ws://127.0.0.1:9/v1/ws',
        CATALOGUE_URL: 'http://127.0.0.1:9',
      },
    )
    expect(r.code).toBe(1)
    expect(r.err).toMatch(/public REST at http:\/\/127\.0\.0\.1:9\/? could not be read/)
    // Its own journal, beside the others (report --paper reads it).
    expect(existsSync(join(stateDir, 'journal-paper.sqlite'))).toBe(true)
  })

  it('without the venue’s or the catalogue’s public address: exit 2 naming what to set', async () => {
    const noVenue = await perpbot(['run', '--paper', '--config', config, '--ops-port', '0'])
    expect(noVenue.code).toBe(2)
    expect(noVenue.err).toContain('PERPS_URL')
    const noCatalogue = await perpbot(['run', '--paper', '--config', config, '--ops-port', '0'], {
      PERPS_URL: 'http://127.0.0.1:9',
    })
    expect(noCatalogue.code).toBe(2)
    expect(noCatalogue.err).toContain('CATALOGUE_URL')
  })

  it('report --paper reads the paper journal; --live with --paper is a usage error', async () => {
    const both = await perpbot(['report', '--paper', '--live'])
    expect(both.code).toBe(2)
    const empty = await perpbot(['report', '--paper', '--config', config])
    expect(empty.code).toBe(0)
    expect(empty.out).toContain(join(stateDir, 'journal-paper.sqlite'))
    const help = await perpbot(['report', '--help'])
    expect(help.out).toContain('journal-paper.sqlite')
  })
})

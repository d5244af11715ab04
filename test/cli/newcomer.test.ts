/**
 * What a newcomer meets on the command line: `--version` on every command, `events --help` describing
 * every option and `--limit` working, `events | head -1` ending quietly with 0 (a real pipe closed
 * under the process), an address pasted as a key getting one clear message, and a user's own file
 * under `config/` not failing the lint that `npm test` runs.
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { EVENTS_OPTION_NAMES, EVENTS_USAGE } from '../../src/cli/events.ts'
import { printBotStatus } from '../../src/cli/status.ts'
import { perpbotNodeArgs } from '../helpers/perpbotProcess.ts'
import { perpbot } from './perpbotCli.ts'

const COMMANDS = ['run', 'mock', 'simulate', 'create-proxy', 'status', 'events', 'config', 'doctor']

describe('the command line for a newcomer', () => {
  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }

  it.each(COMMANDS)('%s --version prints the version and exits 0', async (command) => {
    expect(await perpbot([command, '--version'])).toMatchObject({ code: 0, out: `perpbot ${pkg.version}` })
  })

  it('events --help describes every option', () => {
    for (const name of EVENTS_OPTION_NAMES) {
      const line = EVENTS_USAGE.split('\n').find((l) => new RegExp(`^\\s+(-\\w, )?--${name}\\b`).test(l))
      expect(line, name).toBeDefined()
      // Flag, then at least a few words of description.
      expect(line?.trim().split(/\s{2,}/)[1]?.length ?? 0, name).toBeGreaterThan(8)
    }
  })

  it('events --limit N prints N events', async () => {
    const r = await perpbot(['events', '--limit', '3', '--format', 'ndjson'])
    expect(r.code).toBe(0)
    expect(r.out.split('\n')).toHaveLength(3)
    expect((await perpbot(['events', '--limit', 'x'])).code).toBe(2)
  })

  it('events | head -1 exits 0 without a stack trace', async () => {
    const child = spawn(
      process.execPath,
      perpbotNodeArgs(['events', '--limit', '2000', '--format', 'ndjson']),
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PERPBOT_BIN: '' } },
    )
    let stderr = ''
    child.stderr.setEncoding('utf8')
    child.stderr.on('data', (c: string) => {
      stderr += c
    })
    // Like `head -1`: read one line, then close the pipe.
    await new Promise<void>((resolve) => {
      child.stdout.once('data', () => {
        child.stdout.destroy()
        resolve()
      })
    })
    const t0 = Date.now()
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)))
    // It ends at once, not after printing (or timing out on) the remaining events; the bounds leave
    // room for a loaded machine, where the tsx start alone took 20–30 s (issue 34).
    expect(Date.now() - t0).toBeLessThan(10_000)
    expect(code).toBe(0)
    expect(stderr).not.toMatch(/EPIPE|Error|\n\s+at /)
  }, 90_000)

  it('an address pasted as a key gets one clear message', async () => {
    const r = await perpbot(['config', '--live'], {
      PERPS_URL: 'http://127.0.0.1:9',
      PERPS_PROXY_PRIVATE_KEY: `0x${'ab'.repeat(20)}`,
      PERPS_PROXY_SECRET: 'secret-secret-secret',
    })
    expect(r.code).toBe(2)
    const lines = r.err.split('\n').filter((l) => l.includes('PERPS_PROXY_PRIVATE_KEY'))
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain('this is an address')
    expect(lines[0]).not.toContain('optional')
  })

  it("a user's own file under config/ does not fail the lint", () => {
    const mine = `config/zz-mine-${process.pid}.json`
    writeFileSync(mine, '{"instruments":[\n        {"symbol":"BTC-USDC"}]}\n')
    try {
      const r = spawnSync('node_modules/.bin/biome', ['check', 'config'], { encoding: 'utf8' })
      expect(r.stderr + r.stdout).not.toContain(mine)
      expect(r.status).toBe(0)
    } finally {
      rmSync(mine, { force: true })
    }
  })
})

describe('doctor for a newcomer', () => {
  it("the rehearsal does not warn about its own throwaway key's expiry", async () => {
    const r = await perpbot(['doctor', '--ops-port', '0'])
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/ok {3}proxy credentials: .*expires in 30\.0 days/)
    expect(r.out).not.toContain('rotate')
    expect(r.out).toMatch(/ok {3}stream address: ws:\/\/127\.0\.0\.1/)
  })
})

describe('config refuses what run refuses', () => {
  it('an unknown strategy or bad params exit 2 with the path, with and without --explain', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-config-'))
    const file = join(dir, 'mine.json')
    writeFileSync(
      file,
      JSON.stringify({
        instruments: [
          { symbol: 'BTC-USDC', strategy: 'no-such-strategy' },
          { symbol: 'ETH-USDC', strategy: 'index-peg', params: { size: 'lots' } },
        ],
      }),
    )
    try {
      for (const argv of [
        ['config', '--config', file],
        ['config', '--explain', '--config', file],
      ]) {
        const r = await perpbot(argv)
        expect(r.code, argv.join(' ')).toBe(2)
        expect(r.err).toContain('instruments.0.strategy: unknown strategy')
        expect(r.err).toContain('instruments.1.params.size')
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('status with a position held before the start', () => {
  it('shows net 0 at the start and says what the opening inventory showed before', () => {
    const out: string[] = []
    const pnl = {
      fills: 0,
      volume: '0',
      realizedPnl: '0',
      unrealizedPnl: '0',
      fees: '0',
      funding: '0',
      netPnl: '0',
      openingUnrealizedPnl: '500',
      inventoryPnl: '0',
    }
    printBotStatus(
      { stdout: (l) => void out.push(l) },
      {
        mode: 'live',
        uptimeMs: 2_000,
        instruments: [],
        account: {
          marginRatio: 0.0028950248059319943,
          currency: 'USDC',
          inLiquidation: false,
          pendingWithdrawals: 0,
          pnl,
        },
        alerts: [],
      },
    )
    const text = out.join('\n')
    expect(text).toContain('margin ratio 0.29%')
    expect(text).toContain('net 0.00 USDC = realized 0.00 USDC + unrealized 0.00 USDC')
    expect(text).toContain('its 500.00 USDC from before the start left out')
    expect(text).toContain('account PnL since start:')
  })

  it('after restarts: since the account’s first run, the inventory’s change shown and not in net', () => {
    const out: string[] = []
    printBotStatus(
      { stdout: (l) => void out.push(l) },
      {
        mode: 'live',
        uptimeMs: 2_000,
        instruments: [],
        account: {
          currency: 'USDC',
          inLiquidation: false,
          pendingWithdrawals: 0,
          pnl: {
            fills: 1,
            volume: '10',
            realizedPnl: '2',
            unrealizedPnl: '300',
            fees: '0.1',
            funding: '0',
            netPnl: '1.9',
            openingUnrealizedPnl: '500',
            inventoryPnl: '300',
            since: Date.UTC(2026, 11, 1, 9, 30),
          },
        },
        alerts: [],
      },
    )
    const text = out.join('\n')
    expect(text).toContain('account PnL since 2026-12-01 09:30 UTC: net 1.90 USDC')
    expect(text).toContain('− opening inventory 300.00 USDC')
    expect(text).toContain('300.00 USDC since start, not in net')
  })
})

import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SCENARIO_NAMES } from '../../src/mock/perps/market/scenarios.ts'
import { type RunningMock, startMockServer } from '../../src/mock/server.ts'
import { OWNER_PK } from '../mock/perps/helpers.ts'
import { perpbot } from './perpbotCli.ts'

const COMMANDS = [
  'run',
  'mock',
  'create-proxy',
  'withdraw',
  'revoke-proxy',
  'account-stats',
  'rotate-key',
  'status',
  'events',
  'config',
  'doctor',
  'report',
]

describe('perpbot command line', () => {
  it('prints its version', async () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }
    const r = await perpbot(['--version'])
    expect(r).toMatchObject({ code: 0, out: `perpbot ${pkg.version}` })
  })

  it.each(COMMANDS)('%s --help prints its usage and exits 0', async (command) => {
    const r = await perpbot([command, '--help'])
    expect(r.code).toBe(0)
    expect(r.out).toContain(`usage: perpbot ${command}`)
  })

  it.each(['run', 'simulate'])('%s --help names every mock scenario', async (command) => {
    const r = await perpbot([command, '--help'])
    for (const name of SCENARIO_NAMES) expect(r.out).toContain(name)
  })

  it.each(COMMANDS)('%s exits 2 on an unknown option, naming it', async (command) => {
    const r = await perpbot([command, '--no-such-flag'])
    expect(r.code).toBe(2)
    expect(r.err).toContain('--no-such-flag')
  })

  it('documents the exit codes in the top-level usage', async () => {
    const r = await perpbot(['--help'])
    expect(r.out).toMatch(/exit codes: 0 success; 1 runtime failure.*\n.*2 usage or configuration/)
  })

  it('an unknown command exits 2', async () => {
    expect((await perpbot(['frobnicate'])).code).toBe(2)
  })
})

describe('each command asks for exactly what it uses', () => {
  let mock: RunningMock
  beforeAll(async () => {
    mock = await startMockServer({ port: 0, seed: 2, catalogue: { eventCount: 30 } })
  })
  afterAll(async () => {
    await mock.close()
  })

  it('create-proxy --live needs only PERPS_URL and the owner key, and prints the new credentials once', async () => {
    const r = await perpbot(['create-proxy', '--live', '--expiry-days', '30'], {
      PERPS_URL: mock.url,
      PERPS_OWNER_PRIVATE_KEY: OWNER_PK,
    })
    expect(r.err).not.toContain('PERPS_PROXY')
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/^PERPS_PROXY_PRIVATE_KEY=0x[0-9a-f]{64}$/m)
    expect(r.out).toMatch(/^PERPS_PROXY_SECRET=\S+$/m)
  })

  it('create-proxy --live without the owner key exits 2 and names it', async () => {
    const r = await perpbot(['create-proxy', '--live'], { PERPS_URL: mock.url })
    expect(r.code).toBe(2)
    expect(r.err).toContain('PERPS_OWNER_PRIVATE_KEY')
  })

  it('events --live needs only CATALOGUE_URL and says which catalogue it read', async () => {
    const r = await perpbot(['events', '--live', '--max', '3', '--format', 'ndjson'], {
      CATALOGUE_URL: mock.url,
    })
    expect(r.code).toBe(0)
    expect(r.err).toContain(`reading the catalogue at ${mock.url}`)
    expect(r.out.split('\n')).toHaveLength(3)
  })
})

describe('strategy params that could never pass are refused before anything starts', () => {
  it('run --config with a 44-digit size exits 2 naming the param paths', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-size-'))
    const file = join(dir, 'huge.json')
    const size = `99${'0'.repeat(42)}`
    writeFileSync(
      file,
      JSON.stringify({
        instruments: [{ symbol: 'BTC-USDC', strategy: 'index-peg', params: { size, positionCap: size } }],
      }),
    )
    // (`config` loading strategies too is helper T's part of issue 24.)
    const r = await perpbot(['run', '--config', file])
    expect(r.code).toBe(2)
    expect(r.err).toMatch(/instruments\.0\.params\.size: must be below 10\^15 contracts/)
    expect(r.err).toMatch(/instruments\.0\.params\.positionCap: must be below 10\^15 contracts/)
  })
})

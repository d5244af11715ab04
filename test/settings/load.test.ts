import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigError } from '../../src/errors.ts'
import { explainSettings, loadSettings } from '../../src/settings/load.ts'

const PK = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d' // public dev key (Anvil #1)

function configDir(files: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'perpbot-cfg-'))
  for (const [name, value] of Object.entries(files)) {
    writeFileSync(join(dir, name), typeof value === 'string' ? value : JSON.stringify(value))
  }
  return dir
}

const minimal = { instruments: [{ symbol: 'BTC-USDC', strategy: 'index-peg' }] }

describe('loadSettings', () => {
  it('loads the shipped default + dry-run overlay with no environment', () => {
    const loaded = loadSettings({ configDir: 'config', mode: 'dry-run', env: {} })
    expect(loaded.settings.mode).toBe('dry-run')
    expect(loaded.settings.instruments.length).toBeGreaterThan(0)
    expect(loaded.settings.limiter.requestBudgetPerMinute).toBe(1000)
  })

  it('merges the overlay over the defaults and applies CLI overrides last', () => {
    const dir = configDir({ 'default.json': minimal, 'dry-run.json': { mock: { scenario: 'trending' } } })
    const loaded = loadSettings({
      configDir: dir,
      mode: 'dry-run',
      overrides: { 'mock.seed': 7 },
      env: {},
    })
    expect(loaded.settings.mock.scenario).toBe('trending')
    expect(loaded.settings.mock.seed).toBe(7)
  })

  it('reports every problem at once, each with its path', () => {
    const dir = configDir({
      'default.json': {
        instruments: [
          { symbol: 'X', strategy: '' },
          { symbol: 'X', strategy: 's' },
        ],
        limiter: { headroom: 2 },
        bogus: true,
        risk: { widenAtMarginRatio: 0.9 },
      },
    })
    let err: unknown
    try {
      loadSettings({ configDir: dir, env: { PERPS_PROXY_PRIVATE_KEY: 'nope' } })
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(ConfigError)
    const issues = (err as ConfigError).issues.join('\n')
    expect(issues).toContain('instruments.0.strategy')
    expect(issues).toContain('limiter.headroom')
    expect(issues).toContain('bogus')
    expect(issues).toContain('env PERPS_PROXY_PRIVATE_KEY')
  })

  it('requires keys and URLs in live mode and never echoes a secret', () => {
    const dir = configDir({ 'default.json': minimal })
    let err: unknown
    try {
      loadSettings({ configDir: dir, mode: 'live', env: { PERPS_PROXY_SECRET: 'super-secret-value' } })
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(ConfigError)
    const text = `${(err as Error).message}\n${(err as ConfigError).issues.join('\n')}`
    expect(text).toContain('PERPS_URL')
    expect(text).toContain('PERPS_PROXY_PRIVATE_KEY')
    expect(text).not.toContain('super-secret-value')
  })

  it('reports unreadable and malformed files clearly', () => {
    const dir = configDir({ 'default.json': '{ not json' })
    expect(() => loadSettings({ configDir: dir, env: {} })).toThrow(/invalid JSON/)
    expect(() => loadSettings({ configDir: join(dir, 'missing'), env: {} })).toThrow(ConfigError)
  })

  it('explain redacts secrets', () => {
    const dir = configDir({ 'default.json': minimal })
    const loaded = loadSettings({
      configDir: dir,
      env: {
        PERPS_PROXY_PRIVATE_KEY: PK,
        PERPS_URL: 'http://127.0.0.1:1',
        PERPS_WS_URL: 'ws://127.0.0.1:1/v1/ws',
      },
    })
    const text = JSON.stringify(explainSettings(loaded))
    expect(text).not.toContain(PK.slice(2))
    expect(text).toContain('[redacted]')
    expect(text).toContain('http://127.0.0.1:1')
    // The WebSocket URL is an address like PERPS_URL, shown as is.
    expect(explainSettings(loaded).environment).toMatchObject({ PERPS_WS_URL: 'ws://127.0.0.1:1/v1/ws' })
  })

  describe('refuses what cannot work, each with its path', () => {
    const issuesOf = (files: Record<string, unknown>, env: Record<string, string> = {}): string[] => {
      try {
        loadSettings({ configDir: configDir(files), env })
      } catch (e) {
        if (e instanceof ConfigError) return [...e.issues]
        throw e
      }
      return []
    }
    const with_ = (extra: Record<string, unknown>): Record<string, unknown> => ({
      'default.json': { ...minimal, ...extra },
    })

    it('budgets above the venue limits (1,000 requests / 5,000 actions a minute)', () => {
      expect(
        issuesOf(with_({ limiter: { requestBudgetPerMinute: 1000, actionBudgetPerMinute: 5000 } })),
      ).toEqual([])
      const issues = issuesOf(
        with_({ limiter: { requestBudgetPerMinute: 5000, actionBudgetPerMinute: 5001 } }),
      )
      expect(issues).toEqual([
        "limiter.requestBudgetPerMinute: must be at most 1000, the venue's request limit per minute",
        "limiter.actionBudgetPerMinute: must be at most 5000, the venue's action limit per minute",
      ])
    })

    it('polling intervals below their floor, and polling that leaves no room for commands', () => {
      const zero = issuesOf(with_({ polling: { indexMs: 0, openOrdersMs: 9_999, timeSyncMs: 500 } }))
      expect(zero).toEqual([
        'polling.indexMs: must be at least 1000 ms: faster polling starves the other reads',
        'polling.openOrdersMs: must be at least 10000 ms: faster polling starves the other reads',
      ])
      const floors = {
        statisticsMs: 1_000,
        portfolioMs: 1_000,
        openOrdersMs: 10_000,
        withdrawalsMs: 5_000,
        fundingMs: 5_000,
        depositsMs: 5_000,
        credentialsMs: 1_000,
        timeSyncMs: 500,
      }
      const tooMuch = issuesOf(with_({ polling: floors }))
      expect(tooMuch).toHaveLength(1)
      expect(tooMuch[0]).toMatch(
        /^polling: these intervals need 1000 request weight\/min besides the index, more than the 510/,
      )
    })

    it('unknown mock scenario and fault preset names', () => {
      expect(issuesOf(with_({ mock: { scenario: 'calmm', faults: 'flakey' } }))).toEqual([
        'mock.scenario: unknown scenario (known: calm, trending, liquidation, withdrawal-failure, flaky, calm-slow-premium)',
        'mock.faults: unknown fault preset (known: none, flaky, slow, skewed)',
      ])
      expect(issuesOf(with_({ mock: { scenario: 'liquidation', faults: 'slow' } }))).toEqual([])
    })

    it('an ops server bound beyond loopback without PERPBOT_OPS_TOKEN (never echoing a token)', () => {
      expect(issuesOf(with_({ ops: { host: '0.0.0.0' } }))).toEqual([
        'ops.host: 0.0.0.0 is reachable beyond this host; set env PERPBOT_OPS_TOKEN (required on every endpoint but /livez) or bind 127.0.0.1',
      ])
      const token = 'f00d'.repeat(8)
      expect(issuesOf(with_({ ops: { host: '0.0.0.0' } }), { PERPBOT_OPS_TOKEN: token })).toEqual([])
      expect(issuesOf(with_({ ops: { host: '::1' } }))).toEqual([])
      const short = issuesOf(with_({ ops: { host: '0.0.0.0' } }), { PERPBOT_OPS_TOKEN: 'short secret' })
      expect(short).toEqual([
        'env PERPBOT_OPS_TOKEN: must be at least 16 characters',
        'env PERPBOT_OPS_TOKEN: must be printable ASCII without spaces (it goes in a header)',
      ])
      expect(short.join('\n')).not.toContain('short secret')
    })

    it('the shipped live overlay binds the ops server to loopback', () => {
      const live = JSON.parse(readFileSync('config/live.json', 'utf8')) as { ops?: { host?: string } }
      expect(live.ops?.host).toBeUndefined()
      const loaded = loadSettings({
        configDir: 'config',
        mode: 'live',
        env: {
          PERPS_URL: 'http://127.0.0.1:1',
          CATALOGUE_URL: 'http://127.0.0.1:2',
          PERPS_PROXY_PRIVATE_KEY: PK,
          PERPS_PROXY_SECRET: 's',
        },
      })
      expect(loaded.settings.ops.host).toBe('127.0.0.1')
    })
  })

  it('an own "__proto__" key in an overlay is reported as unknown, not merged into the prototype (fuzz find)', () => {
    // JSON.parse makes `__proto__` an own key; merging it by assignment swapped the merged object's
    // prototype, so the strict schema never saw the key and read the fields through the prototype.
    const dir = configDir({
      'default.json': { ...minimal, risk: { hysteresis: 0.05 } },
      'dry-run.json': '{"risk":{"__proto__":{"haltAtMarginRatio":5}}}',
    })
    let error: unknown
    try {
      loadSettings({ configDir: dir, mode: 'dry-run', env: {} })
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).issues.join('\n')).toMatch(/^risk: .*__proto__/m)
  })
})

describe('perpbot config / run with an unknown scenario', () => {
  it('exits 2 naming the path, before anything starts', async () => {
    const { main } = await import('../../src/cli/main.ts')
    const dir = configDir({ 'default.json': minimal, 'x.json': { mock: { scenario: 'calmm' } } })
    for (const argv of [
      ['config', '--config', join(dir, 'x.json')],
      ['run', '--scenario', 'calmm'],
    ]) {
      const err: string[] = []
      const code = await main(argv, {
        env: {},
        stdout: () => undefined,
        stderr: (l) => err.push(l),
        configDir: dir,
        isTty: false,
        signal: new AbortController().signal,
      })
      expect(code, argv.join(' ')).toBe(2)
      expect(err.join('\n')).toContain('mock.scenario: unknown scenario')
    }
  })
  it('refuses keys outside the secp256k1 range and a secret that is not header-safe, before anything is sent', () => {
    const dir = configDir({ 'default.json': minimal })
    const zero = `0x${'00'.repeat(32)}`
    const ones = `0x${'ff'.repeat(32)}`
    const secret = 'sécret-with-ünicode'
    let err: unknown
    try {
      loadSettings({
        configDir: dir,
        env: { PERPS_PROXY_PRIVATE_KEY: ones, PERPS_OWNER_PRIVATE_KEY: zero, PERPS_PROXY_SECRET: secret },
      })
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(ConfigError)
    const issues = (err as ConfigError).issues
    expect(issues).toContain(
      'env PERPS_PROXY_PRIVATE_KEY: must be a private key written 0x and 64 hex digits: outside the secp256k1 range (1 to n-1)',
    )
    expect(issues.some((i) => i.startsWith('env PERPS_OWNER_PRIVATE_KEY: ') && i.includes('secp256k1'))).toBe(
      true,
    )
    expect(issues).toContain(
      'env PERPS_PROXY_SECRET: must be visible ASCII only (no spaces, control or non-ASCII characters)',
    )
    const text = `${(err as Error).message}\n${issues.join('\n')}`
    for (const form of [
      'ff'.repeat(32),
      BigInt(ones).toString(),
      Buffer.from('ff'.repeat(32), 'hex').toString('base64'),
      secret,
    ])
      expect(text).not.toContain(form)
  })

  it('bounds the response size and the venue clock skew with sane defaults', () => {
    const loaded = loadSettings({
      configDir: configDir({ 'default.json': minimal }),
      env: { PERPS_PROXY_PRIVATE_KEY: PK },
    })
    expect(loaded.settings.perps.maxResponseBytes).toBe(8 * 1024 * 1024)
    expect(loaded.settings.perps.maxClockSkewMs).toBe(300_000)
    expect(loaded.settings.catalogue.maxResponseBytes).toBe(32 * 1024 * 1024)
    const dir = configDir({
      'default.json': { ...minimal, perps: { maxResponseBytes: 10, maxClockSkewMs: 0 } },
    })
    expect(() => loadSettings({ configDir: dir, env: {} })).toThrow(
      /perps\.maxResponseBytes[\s\S]*perps\.maxClockSkewMs/,
    )
  })
})

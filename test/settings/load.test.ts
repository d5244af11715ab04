import { mkdtempSync, writeFileSync } from 'node:fs'
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
      env: { PERPS_PROXY_PRIVATE_KEY: PK, PERPS_URL: 'http://127.0.0.1:1' },
    })
    const text = JSON.stringify(explainSettings(loaded))
    expect(text).not.toContain(PK.slice(2))
    expect(text).toContain('[redacted]')
    expect(text).toContain('http://127.0.0.1:1')
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
      'env PERPS_PROXY_PRIVATE_KEY: must be a 0x-prefixed 32-byte hex private key: outside the secp256k1 range (1 to n-1)',
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

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadAndResolve } from '../../../src/bot/startup/resolveConfig.ts'
import { ConfigError } from '../../../src/errors.ts'

function configDir(defaults: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'perpbot-cfg-'))
  writeFileSync(join(dir, 'default.json'), JSON.stringify(defaults))
  return dir
}

describe('loadAndResolve', () => {
  it('reports structural and strategy problems together', async () => {
    const dir = configDir({
      instruments: [
        { symbol: 'BTC-USDC', strategy: 'index-pegg' },
        { symbol: 'ETH-USDC', strategy: 'index-peg', params: { size: 'abc', positionCap: '1' } },
      ],
      limiter: { headroom: 3 },
    })
    const err = await loadAndResolve({ configDir: dir, env: {} }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ConfigError)
    const issues = (err as ConfigError).issues.join('\n')
    expect(issues).toContain('limiter.headroom')
    expect(issues).toContain('instruments.0.strategy: unknown strategy "index-pegg"')
    expect(issues).toContain('instruments.1.params.size')
  })

  it('picks up a strategy file dropped into the configured strategies folder, by configuration alone', async () => {
    const strategies = mkdtempSync(join(tmpdir(), 'perpbot-strategies-'))
    mkdirSync(strategies, { recursive: true })
    writeFileSync(
      join(strategies, 'flat.mjs'),
      [
        "import { z } from 'zod'",
        'export const strategy = {',
        "  name: 'always-flat',",
        "  description: 'quotes nothing (test plug-in)',",
        "  paramsSchema: z.object({ positionCap: z.string().default('0') }),",
        '  quote: () => [],',
        '}',
      ].join('\n'),
    )
    const dir = configDir({
      strategiesDir: strategies,
      instruments: [{ symbol: 'BTC-USDC', strategy: 'always-flat', params: {} }],
    })
    const loaded = await loadAndResolve({ configDir: dir, env: {} })
    expect(loaded.strategies.map((s) => [s.symbol, s.strategy.name])).toEqual([['BTC-USDC', 'always-flat']])
  })
})

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { ConfigError } from '../../src/errors.ts'
import {
  createStrategyRegistry,
  DEFAULT_REVISIT_MS,
  DEFAULT_STRATEGIES_DIR,
  discoverStrategyFiles,
  loadStrategies,
  loadStrategyListing,
  StrategyLoadError,
  StrategyOutputError,
} from '../../src/strategy/registry.ts'
import { OPTIONAL_INPUTS, type OptionalInput, type StrategySnapshot } from '../../src/strategy/strategy.ts'
import { strategies as shippedListing } from '../../strategies/index.ts'
import { makeSnapshot } from './fixtures.ts'

const SHIPPED_STRATEGIES = shippedListing.map((e) => e.strategy)

const zodUrl = pathToFileURL(createRequire(import.meta.url).resolve('zod')).href
const repoUrl = (p: string) => pathToFileURL(join(import.meta.dirname, '../..', p)).href

/** A TypeScript plug-in that uses the project's helpers by absolute URL (it lives outside the repo). */
const tsPlugin = (name: string) => `
import { z } from '${zodUrl}'
import { defineStrategy } from '${repoUrl('src/strategy/strategy.ts')}'
export const strategy = defineStrategy({
  name: '${name}',
  description: 'one bid one tick under the index',
  paramsSchema: z.strictObject({ qty: z.string().default('1'), positionCap: z.string().default('5') }),
  quote(snapshot, params) {
    if (snapshot.index === undefined) return []
    return [{ side: 'buy', price: '99', qty: params.qty }]
  },
})
`

/** A plain JavaScript plug-in with a hand-rolled schema (no imports at all). */
const mjsPlugin = `
export const strategy = {
  name: 'plain-js',
  description: 'no dependencies',
  paramsSchema: {
    safeParse: (v) => (v && typeof v === 'object' && !('bad' in v)
      ? { success: true, data: { positionCap: '1' } }
      : { success: false, error: { issues: [{ path: ['bad'], message: 'not allowed' }] } }),
  },
  quote: () => [],
}
export const helper = 1
`

describe('strategy registry', () => {
  let dir: string
  const dirs: string[] = []
  const fresh = (files: Record<string, string>): string => {
    const d = mkdtempSync(join(tmpdir(), 'perpbot-strategies-'))
    dirs.push(d)
    for (const [name, text] of Object.entries(files)) {
      const full = join(d, name)
      mkdirSync(join(full, '..'), { recursive: true })
      writeFileSync(full, text)
    }
    return d
  }

  beforeAll(() => {
    dir = fresh({
      'oneBid.ts': tsPlugin('one-bid'),
      'plain.mjs': mjsPlugin,
      'folder/index.ts': tsPlugin('from-folder'),
      '_helper.ts': 'throw new Error("helpers are not loaded")',
      'notes.md': '# not a module',
      'oneBid.test.ts': 'throw new Error("tests are not loaded")',
    })
  })
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  })

  it('loads the shipped strategies from the default folder once each', async () => {
    const registry = await loadStrategies()
    expect(registry.names()).toEqual(['avellaneda-stoikov', 'catalogue-bias', 'index-peg', 'vol-spread'])
    expect(registry.get('index-peg')).toBe(SHIPPED_STRATEGIES[0])
    expect(registry.source('vol-spread')).toBe('shipped (vol-spread)')
    expect(discoverStrategyFiles(DEFAULT_STRATEGIES_DIR).map((f) => f.replace(/.*\//, ''))).toEqual([
      'avellanedaStoikov.ts',
      'catalogueBias.ts',
      'indexPeg.ts',
      'volSpread.ts',
    ])
  })

  it('reads the shipped strategies from the listing in strategies/, which names every module there', async () => {
    const listing = await loadStrategyListing(DEFAULT_STRATEGIES_DIR)
    expect(listing?.file).toBe(join(DEFAULT_STRATEGIES_DIR, 'index.ts'))
    for (const e of listing?.entries ?? []) {
      const mod = (await import(pathToFileURL(e.file).href)) as { strategy?: unknown }
      expect(mod.strategy, e.file).toBe(e.strategy)
    }
    const listed = (listing?.entries ?? []).map((e) => e.file).sort()
    expect(discoverStrategyFiles(DEFAULT_STRATEGIES_DIR)).toEqual(listed)
  })

  it('has no import from src/ up into strategies/', () => {
    const src = join(import.meta.dirname, '../../src')
    const offenders: string[] = []
    const walk = (d: string): void => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const full = join(d, e.name)
        if (e.isDirectory()) walk(full)
        else if (/from '(\.\.\/)+strategies\//.test(readFileSync(full, 'utf8'))) offenders.push(full)
      }
    }
    walk(src)
    expect(offenders).toEqual([])
  })

  it('loads a listed module through its listing only, never again as a drop-in', async () => {
    // The listed module has no `strategy` export: scanned as a drop-in it would fail to load.
    const d = fresh({
      'index.mjs': `import { listedOnly } from './listed.mjs'\nexport const strategies = [{ module: './listed.mjs', strategy: listedOnly }]`,
      'listed.mjs': `export const listedOnly = { name: 'listed', description: '', paramsSchema: { safeParse: (v) => ({ success: true, data: v }) }, quote: () => [] }`,
      'dropped.ts': tsPlugin('dropped'),
    })
    const registry = await loadStrategies({ directory: d, includeShipped: false })
    expect(registry.names()).toEqual(['dropped', 'listed'])
    expect(registry.source('listed')).toBe(join(d, 'listed.mjs'))
    expect(registry.source('dropped')).toBe(join(d, 'dropped.ts'))
  })

  it.each([
    ['no `strategies` array', { 'index.mjs': 'export const other = []' }, /must export `strategies`/],
    [
      'a module outside the folder',
      { 'index.mjs': "export const strategies = [{ module: '../elsewhere.mjs', strategy: {} }]" },
      /strategies\[0\]\.module must name a file of this folder/,
    ],
    [
      'a module that is not there',
      { 'index.mjs': "export const strategies = [{ module: './gone.mjs', strategy: {} }]" },
      /strategies\[0\]\.module must name a file of this folder/,
    ],
  ])('rejects a listing with %s, naming the listing', async (_n, files, message) => {
    const d = fresh(files)
    const err = await loadStrategies({ directory: d }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(StrategyLoadError)
    expect((err as StrategyLoadError).file).toBe(join(d, 'index.mjs'))
    expect((err as Error).message).toMatch(message)
  })

  it('picks up strategies dropped into a configured folder, alongside the shipped ones', async () => {
    const registry = await loadStrategies({ directory: dir })
    expect(registry.names()).toEqual([
      'avellaneda-stoikov',
      'catalogue-bias',
      'from-folder',
      'index-peg',
      'one-bid',
      'plain-js',
      'vol-spread',
    ])
    expect(registry.source('one-bid')).toBe(join(dir, 'oneBid.ts'))
    const resolved = registry.resolve('one-bid', { qty: '2' })
    expect(resolved.params).toEqual({ qty: '2', positionCap: '5' })
    expect(resolved.positionCap).toBe('5')
    expect(resolved.quote(makeSnapshot())).toEqual([{ side: 'buy', price: '99', qty: '2' }])
    expect(registry.resolve('plain-js', {}).quote(makeSnapshot())).toEqual([])
  })

  it('can load a folder without the shipped strategies', async () => {
    const registry = await loadStrategies({ directory: dir, includeShipped: false })
    expect(registry.names()).toEqual(['from-folder', 'one-bid', 'plain-js'])
  })

  it.each([
    [
      'no `strategy` export',
      { 'bad.mjs': 'export const other = 1' },
      /bad\.mjs: module has no named export `strategy`[\s\S]*exports found: other/,
    ],
    [
      'a default export only',
      { 'bad.mjs': 'export default { name: "x" }' },
      /bad\.mjs: module has no named export `strategy`/,
    ],
    [
      'a malformed export',
      {
        'bad.mjs': 'export const strategy = { name: "has space", paramsSchema: {}, quote: 1, catalogue: 2 }',
      },
      /bad\.mjs: invalid strategy export "has space"[\s\S]*name must be[\s\S]*description must be[\s\S]*paramsSchema must be[\s\S]*quote must be[\s\S]*catalogue, when present/,
    ],
    [
      'a syntax error',
      { 'bad.ts': 'export const strategy = {' },
      /bad\.ts: failed to import strategy module/,
    ],
    [
      'a module that throws',
      { 'bad.mjs': 'throw new Error("boom at import")' },
      /bad\.mjs: failed to import[\s\S]*boom at import/,
    ],
  ])('rejects %s, naming the file', async (_n, files, message) => {
    const d = fresh(files)
    const err = await loadStrategies({ directory: d }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(StrategyLoadError)
    expect((err as StrategyLoadError).file).toBe(join(d, Object.keys(files)[0] as string))
    expect((err as Error).message).toMatch(message)
  })

  it('rejects a duplicate name, naming both sources', async () => {
    const d = fresh({ 'clash.ts': tsPlugin('index-peg') })
    await expect(loadStrategies({ directory: d })).rejects.toThrow(
      /duplicate strategy name "index-peg"[\s\S]*first: shipped \(index-peg\)[\s\S]*again: .*clash\.ts/,
    )
  })

  it('rejects a missing folder', async () => {
    await expect(loadStrategies({ directory: join(dir, 'nope') })).rejects.toThrow(
      /strategies directory does not exist/,
    )
  })

  describe('resolve', () => {
    const registry = createStrategyRegistry(
      SHIPPED_STRATEGIES.map((strategy) => ({ strategy, source: 'test' })),
    )

    it('resolves the params of the shipped config for every shipped strategy', () => {
      const config = JSON.parse(
        readFileSync(join(import.meta.dirname, '../../config/default.json'), 'utf8'),
      ) as {
        instruments: { strategy: string; params: unknown }[]
      }
      for (const i of config.instruments) {
        const r = registry.resolve(i.strategy, i.params)
        expect(r.positionCap).toMatch(/^\d/)
      }
      expect(
        registry.resolve('catalogue-bias', { size: '1', positionCap: '1' }).catalogueQuery?.tagSlug,
      ).toBe('crypto')
      expect(registry.resolve('index-peg', { size: '1', positionCap: '1' }).catalogueQuery).toBeUndefined()
    })

    it('reports an unknown strategy with the known names', () => {
      const err = (() => {
        try {
          registry.resolve('index-pegg', {})
        } catch (e) {
          return e
        }
      })()
      expect(err).toBeInstanceOf(ConfigError)
      expect((err as ConfigError).issues).toEqual([
        'known strategies: avellaneda-stoikov, catalogue-bias, index-peg, vol-spread',
      ])
    })

    it('reports every params issue with its path', () => {
      let err: unknown
      try {
        registry.resolve('index-peg', { size: '-1', levels: 2.5, halfSpreadBps: 'wide', extra: true })
      } catch (e) {
        err = e
      }
      expect(err).toBeInstanceOf(ConfigError)
      const issues = (err as ConfigError).issues
      expect(issues.some((i) => i.startsWith('params.size: must be greater than 0'))).toBe(true)
      expect(issues.some((i) => i.startsWith('params.positionCap: '))).toBe(true)
      expect(issues.some((i) => i.startsWith('params.levels: '))).toBe(true)
      expect(issues.some((i) => i.startsWith('params.halfSpreadBps: '))).toBe(true)
      expect(issues.some((i) => i.includes('extra'))).toBe(true)
      expect((err as ConfigError).message).toContain('invalid params for strategy "index-peg"')
    })

    it('freezes parsed params', () => {
      const r = registry.resolve('index-peg', { size: '1', positionCap: '1' })
      expect(Object.isFrozen(r.params)).toBe(true)
    })

    it('rejects quotes that break the venue rules, the mode or the position cap', () => {
      const quotes = [
        [{ side: 'buy', price: '99.123', qty: '1' }, /more than 2 decimals/],
        [{ side: 'buy', price: '99', qty: '6' }, /above the cap 5/],
        [{ side: 'sell', price: '99', qty: '1' }, /reduceOnly: true/],
      ] as const
      for (const [q, msg] of quotes) {
        const r = createStrategyRegistry([
          {
            source: 'inline',
            strategy: {
              name: 'fixed',
              description: '',
              paramsSchema: SHIPPED_STRATEGIES[0]?.paramsSchema as never,
              quote: () => [q],
            },
          },
        ]).resolve('fixed', { size: '1', positionCap: '5' })
        const mode = msg.source.includes('reduceOnly') ? 'reduce-only' : 'normal'
        expect(() => r.quote(makeSnapshot({ mode, positionSize: '1' }))).toThrow(StrategyOutputError)
        expect(() => r.quote(makeSnapshot({ mode, positionSize: '1' }))).toThrow(msg)
      }
    })

    it('checks a repeated output again when the mode, the position, the instrument or the output changed', () => {
      // One output array, changed in place after it passed: a repeat is only a repeat of what was checked.
      const out = [{ side: 'buy' as const, price: '99.5', qty: '1' }]
      const r = createStrategyRegistry([
        {
          source: 'inline',
          strategy: {
            name: 'fixed',
            description: '',
            paramsSchema: SHIPPED_STRATEGIES[0]?.paramsSchema as never,
            quote: () => out,
          },
        },
      ]).resolve('fixed', { size: '1', positionCap: '5' })
      const inst = makeSnapshot().instrument
      const at = (o: Parameters<typeof makeSnapshot>[0]) => makeSnapshot({ instrument: inst, ...o })
      expect(r.quote(at({ positionSize: '1' }))).toBe(out)
      expect(r.quote(at({ positionSize: '1' }))).toBe(out)
      // Same quotes, another mode: a buy does not reduce a long position.
      expect(() => r.quote(at({ positionSize: '1', mode: 'reduce-only' }))).toThrow(/reduceOnly: true/)
      // Same quotes, a position near the cap.
      expect(() => r.quote(at({ positionSize: '4.5' }))).toThrow(/above the cap 5/)
      // Same quotes, an instrument with fewer decimals than the price needs.
      expect(r.quote(at({ positionSize: '1' }))).toBe(out)
      expect(() =>
        r.quote(makeSnapshot({ instrument: { ...inst, priceDecimals: 0 }, positionSize: '1' })),
      ).toThrow(/more than 0 decimals/)
      // The array changed in place after it passed.
      expect(r.quote(at({ positionSize: '1' }))).toBe(out)
      out[0] = { side: 'buy', price: '99.123', qty: '1' }
      expect(() => r.quote(at({ positionSize: '1' }))).toThrow(/more than 2 decimals/)
    })

    it('wraps a throwing strategy', () => {
      const r = createStrategyRegistry([
        {
          source: 'inline',
          strategy: {
            name: 'thrower',
            description: '',
            paramsSchema: SHIPPED_STRATEGIES[0]?.paramsSchema as never,
            quote: () => {
              throw new Error('kaboom')
            },
          },
        },
      ]).resolve('thrower', { size: '1', positionCap: '5' })
      expect(() => r.quote(makeSnapshot())).toThrow(/quote\(\) threw: kaboom/)
    })

    it("passes on a strategy's revisitAt, and the default cadence when it names none or a bad one", () => {
      const withRevisit = (revisitAt?: (s: StrategySnapshot) => number | undefined) =>
        createStrategyRegistry([
          {
            source: 'inline',
            strategy: {
              name: 'timed',
              description: '',
              paramsSchema: SHIPPED_STRATEGIES[0]?.paramsSchema as never,
              quote: () => [],
              ...(revisitAt ? { revisitAt } : {}),
            },
          },
        ]).resolve('timed', { size: '1', positionCap: '5' })
      const s = makeSnapshot()
      expect(withRevisit((x) => x.now + 7_000).revisitAt(s)).toBe(s.now + 7_000)
      expect(withRevisit(() => undefined).revisitAt(s)).toBeUndefined()
      const fallback = s.now + DEFAULT_REVISIT_MS
      expect(withRevisit().revisitAt(s)).toBe(fallback)
      expect(withRevisit((x) => x.now).revisitAt(s)).toBe(fallback)
      expect(withRevisit(() => Number.NaN).revisitAt(s)).toBe(fallback)
      expect(
        withRevisit(() => {
          throw new Error('bug')
        }).revisitAt(s),
      ).toBe(fallback)
    })

    it('resolves the inputs a strategy reads: its list, or every optional input when it gives none', () => {
      const withReads = (reads?: readonly OptionalInput[]) =>
        createStrategyRegistry([
          {
            source: 'inline',
            strategy: {
              name: 'reader',
              description: '',
              paramsSchema: SHIPPED_STRATEGIES[0]?.paramsSchema as never,
              quote: () => [],
              ...(reads ? { reads } : {}),
            },
          },
        ]).resolve('reader', { size: '1', positionCap: '5' })
      expect([...withReads(['bbo']).reads]).toEqual(['bbo'])
      expect([...withReads([]).reads]).toEqual([])
      expect([...withReads().reads]).toEqual([...OPTIONAL_INPUTS])
    })

    it('rejects reads naming an input that does not exist, with the allowed names', () => {
      for (const reads of [['equity', 'mood'], 'bbo']) {
        const bad = { name: 'odd', description: '', paramsSchema: z.object({}), quote: () => [], reads }
        expect(() => createStrategyRegistry([{ source: 'inline', strategy: bad as never }])).toThrow(
          /reads, when present, must be an array of 'equity', 'statistics', 'bbo', 'catalogue'/,
        )
      }
    })

    it('resolves maxOrders from the params, refuses a plan over it, and reports a bad answer as config', () => {
      expect(registry.resolve('index-peg', { size: '1', positionCap: '1', levels: 3 }).maxOrders).toBe(6)
      const inline = (maxOrders: unknown) =>
        createStrategyRegistry([
          {
            source: 'inline',
            strategy: {
              name: 'two-bids',
              description: '',
              paramsSchema: SHIPPED_STRATEGIES[0]?.paramsSchema as never,
              maxOrders: maxOrders as never,
              quote: () => [
                { side: 'buy', price: '99', qty: '1' },
                { side: 'buy', price: '98', qty: '1' },
              ],
            },
          },
        ]).resolve('two-bids', { size: '1', positionCap: '5' })
      expect(inline(undefined).maxOrders).toBeUndefined()
      expect(() => inline(() => 1).quote(makeSnapshot({ positionSize: '0' }))).toThrow(
        /2 quotes exceed the strategy's own maxOrders 1/,
      )
      expect(inline(() => 2).quote(makeSnapshot({ positionSize: '0' }))).toHaveLength(2)
      expect(() => inline(() => 1.5)).toThrow(ConfigError)
      expect(() => inline(() => -1)).toThrow(/whole number ≥ 0/)
      expect(() =>
        inline(() => {
          throw new Error('boom')
        }),
      ).toThrow(/maxOrders\(\) threw/)
      expect(() => inline(7)).toThrow(StrategyLoadError)
    })

    it('rejects a revisitAt that is not a function', () => {
      const bad = { name: 'odd', description: '', paramsSchema: z.object({}), quote: () => [], revisitAt: 5 }
      expect(() => createStrategyRegistry([{ source: 'inline', strategy: bad as never }])).toThrow(
        StrategyLoadError,
      )
    })
  })
})

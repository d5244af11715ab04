/**
 * The import graph of src/: no circles, no import running back up a floor, and nothing the production
 * start path loads pulls in test tooling (fast-check, the conformance kit). Imports are read from the
 * source text (relative specifiers, type-only ones included), so this needs no TypeScript.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(import.meta.dirname, '../..')

interface Graph {
  /** File (relative to the repo root) → the src files it imports. */
  edges: Map<string, Set<string>>
  /** File → the bare packages it imports. */
  packages: Map<string, Set<string>>
}

const SPECIFIER =
  /(?:\bimport|\bexport)\s*(?:type\s+)?(?:[^'"`;]*?\sfrom\s*)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g

function sourceFiles(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path))
    else if (/\.(ts|mts|mjs)$/.test(name) && !name.endsWith('.d.ts')) out.push(path)
  }
  return out
}

function readGraph(): Graph {
  const files = sourceFiles(join(ROOT, 'src')).map((f) => relative(ROOT, f))
  const known = new Set(files)
  const edges = new Map<string, Set<string>>()
  const packages = new Map<string, Set<string>>()
  for (const file of files) {
    // Comments may quote imports (docs); strip them first.
    const text = readFileSync(join(ROOT, file), 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '')
    const local = new Set<string>()
    const bare = new Set<string>()
    for (const m of text.matchAll(SPECIFIER)) {
      const spec = m[1] ?? m[2] ?? ''
      if (spec.startsWith('.')) {
        const target = relative(ROOT, resolve(ROOT, dirname(file), spec)).replace(/\.js$/, '.ts')
        const hit = [target, `${target}.ts`, `${target}/index.ts`].find((c) => known.has(c))
        if (hit) local.add(hit)
      } else if (!spec.startsWith('node:')) {
        bare.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : (spec.split('/')[0] ?? spec))
      }
    }
    edges.set(file, local)
    packages.set(file, bare)
  }
  return { edges, packages }
}

/** Strongly connected components of more than one file (Tarjan), plus files importing themselves. */
function circles(edges: Map<string, Set<string>>): string[][] {
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const visit = (v: string): void => {
    index.set(v, next)
    low.set(v, next)
    next += 1
    stack.push(v)
    onStack.add(v)
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0))
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = []
      let w: string | undefined
      do {
        w = stack.pop()
        if (w !== undefined) {
          onStack.delete(w)
          component.push(w)
        }
      } while (w !== undefined && w !== v)
      if (component.length > 1 || edges.get(v)?.has(v)) found.push(component.sort())
    }
  }
  for (const v of edges.keys()) if (!index.has(v)) visit(v)
  return found
}

/**
 * The floors of src/, top first: a file may import its own floor or any floor below, never one above.
 * Folders not listed (the leaves: errors, clock, random, decimal, pnlTypes, http, logging, settings,
 * alerts) are checked by the rules below them.
 */
const BOT_FLOORS = [
  // Re-exports for src/research only (issue 37): above everything it re-exports.
  'src/bot/researchApi.ts',
  'src/bot/startBot.ts',
  'src/bot/startup/',
  'src/bot/observe/',
  'src/bot/control/',
  'src/bot/account/supervision/',
  'src/bot/inputs/',
  'src/bot/actors/',
  'src/bot/orders/',
  'src/bot/instrument/',
  'src/bot/quoting/',
  'src/bot/account/',
  'src/bot/limiter/',
  'src/bot/shared/',
]

/** A file under the first prefix must not import a file under any of the second. */
const FORBIDDEN: readonly (readonly [string, readonly string[]])[] = [
  ['src/', ['src/kit/']],
  ['src/strategy/', ['src/bot/', 'src/mock/', 'src/cli/', 'src/ops/', 'src/sim/']],
  ['src/ops/', ['src/bot/', 'src/cli/', 'src/sim/']],
  ['src/perps/', ['src/bot/', 'src/mock/', 'src/cli/', 'src/ops/', 'src/strategy/', 'src/sim/']],
  ['src/catalogue/', ['src/bot/', 'src/mock/', 'src/cli/', 'src/ops/', 'src/strategy/', 'src/sim/']],
  ['src/http/', ['src/bot/', 'src/mock/', 'src/cli/', 'src/ops/', 'src/perps/', 'src/catalogue/']],
  ['src/mock/', ['src/bot/', 'src/cli/', 'src/ops/', 'src/sim/']],
  ['src/bot/', ['src/cli/', 'src/sim/', 'src/engine/']],
  // The engine (startEngine and the venue port) sits above the bot and below its callers.
  ['src/engine/', ['src/cli/', 'src/sim/', 'src/research/', 'src/paper/', 'src/ops/']],
  ['src/perps/throttle/', ['src/perps/client/', 'src/perps/stream/', 'src/perps/signing/']],
  ['src/journal/', ['src/bot/', 'src/mock/', 'src/cli/', 'src/ops/', 'src/sim/', 'src/strategy/']],
  ['src/preflight/', ['src/cli/', 'src/sim/']],
]

function botFloor(file: string): number | undefined {
  // The longest matching prefix: account/supervision/ is above account/.
  let best: { floor: number; length: number } | undefined
  BOT_FLOORS.forEach((prefix, floor) => {
    if (file.startsWith(prefix) && (!best || prefix.length > best.length))
      best = { floor, length: prefix.length }
  })
  return best?.floor
}

function upwardImports(edges: Map<string, Set<string>>): string[] {
  const up: string[] = []
  for (const [from, targets] of edges) {
    for (const to of targets) {
      for (const [below, above] of FORBIDDEN) {
        if (from.startsWith(below) && !from.startsWith('src/kit/') && above.some((a) => to.startsWith(a)))
          up.push(`${from} -> ${to}`)
      }
      const a = botFloor(from)
      const b = botFloor(to)
      if (a !== undefined && b !== undefined && b < a) up.push(`${from} -> ${to} (up from ${BOT_FLOORS[a]})`)
    }
  }
  return up
}

/**
 * Issue 37, point 4: `src/research/` reaches the engine through at most 3 entry points. The engine is
 * the bot, the simulator, the in-process exchange and the engine's assembly (ENGINE below); research
 * imports it only through facades in the owning folders. Not counted, as shared utilities rather than
 * the engine: src/analytics, decimal.ts, clock.ts, random.ts, errors.ts, guards.ts, logging/, the perps
 * schemas; and the venue's API library the downloader and recorder read the live venue with (perps
 * client and stream, http/), and the strategy contract (strategy/), none of which is in ENGINE.
 */
const ENGINE = ['src/bot/', 'src/sim/', 'src/mock/', 'src/engine/', 'src/paper/']
const RESEARCH_ENTRY_POINTS_MAX = 3

function researchEntryPoints(edges: Map<string, Set<string>>): string[] {
  const entries = new Set<string>()
  for (const [from, targets] of edges)
    if (from.startsWith('src/research/'))
      for (const to of targets) if (ENGINE.some((e) => to.startsWith(e))) entries.add(to)
  return [...entries].sort()
}

function reachable(edges: Map<string, Set<string>>, start: string): Set<string> {
  const seen = new Set<string>([start])
  const todo = [start]
  for (let f = todo.pop(); f !== undefined; f = todo.pop()) {
    for (const t of edges.get(f) ?? []) {
      if (!seen.has(t)) {
        seen.add(t)
        todo.push(t)
      }
    }
  }
  return seen
}

describe('the import graph of src/', () => {
  const graph = readGraph()

  it('reads the graph (the regex finds the imports it should)', () => {
    expect(graph.edges.size).toBeGreaterThan(200)
    expect(graph.edges.get('src/bot/startBot.ts')).toContain('src/bot/startup/connect.ts')
    expect(graph.packages.get('src/kit/conformance.ts')).toContain('fast-check')
  })

  it('has no import circle', () => {
    expect(circles(graph.edges)).toEqual([])
  })

  it('has no import running back up a floor', () => {
    expect(upwardImports(graph.edges)).toEqual([])
  })

  it(`research reaches the engine through at most ${RESEARCH_ENTRY_POINTS_MAX} entry points`, () => {
    const entries = researchEntryPoints(graph.edges)
    expect(entries.length, entries.join(', ')).toBeLessThanOrEqual(RESEARCH_ENTRY_POINTS_MAX)
    // The facades: what research reaches of the bot, of the exchange core, and of the simulator.
    expect(entries).toEqual([
      'src/bot/researchApi.ts',
      'src/mock/perps/index.ts',
      'src/sim/simulate/index.ts',
    ])
    // The count fails on a fourth module, however it is reached.
    const more = new Map(graph.edges)
    more.set('src/research/x.ts', new Set(['src/bot/quoting/orderPlan.ts', 'src/decimal.ts']))
    expect(researchEntryPoints(more).length).toBe(RESEARCH_ENTRY_POINTS_MAX + 1)
  })

  it('the production start path loads no test tooling (fast-check, the kit)', () => {
    const loaded = reachable(graph.edges, 'src/cli/main.ts')
    expect(loaded.has('src/bot/startBot.ts')).toBe(true)
    const tooling = [...loaded].filter(
      (f) => f.startsWith('src/kit/') || graph.packages.get(f)?.has('fast-check') === true,
    )
    expect(tooling).toEqual([])
  })

  it('the checks fail on a circle and on an import back up', () => {
    const bad = new Map<string, Set<string>>([
      ['src/bot/quoting/a.ts', new Set(['src/bot/actors/b.ts'])],
      ['src/bot/actors/b.ts', new Set(['src/bot/quoting/a.ts'])],
      ['src/bot/account/c.ts', new Set(['src/bot/account/supervision/d.ts'])],
      ['src/ops/e.ts', new Set(['src/bot/account/c.ts'])],
      ['src/strategy/f.ts', new Set(['src/kit/g.ts'])],
    ])
    expect(circles(bad)).toEqual([['src/bot/actors/b.ts', 'src/bot/quoting/a.ts']])
    expect(upwardImports(bad)).toEqual([
      'src/bot/quoting/a.ts -> src/bot/actors/b.ts (up from src/bot/quoting/)',
      'src/bot/account/c.ts -> src/bot/account/supervision/d.ts (up from src/bot/account/)',
      'src/ops/e.ts -> src/bot/account/c.ts',
      'src/strategy/f.ts -> src/kit/g.ts',
    ])
  })
})

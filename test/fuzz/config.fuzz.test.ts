/**
 * Fuzz: the config loader against generated invalid configuration trees (mutations of the effective
 * configuration, unknown and prototype-pollution keys, huge strings, deep nesting) and invalid
 * environment values. Every outcome is a loaded configuration or a `ConfigError` whose issues each
 * name a path; never another exception. A few go through the CLI in process: exit code 2.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { main } from '../../src/cli/main.ts'
import { ConfigError } from '../../src/errors.ts'
import { type LoadSettingsOptions, loadSettings } from '../../src/settings/load.ts'
import { Secrets } from '../../src/settings/schema.ts'
import { brief, fuzzParams, hostileJson, hostileScalar, mutated, NASTY_KEYS, pathsOf } from './fuzzKit.ts'

const CONFIG_DIR = 'config'
const dir = mkdtempSync(join(tmpdir(), 'perpbot-fuzz-config-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let fileNo = 0
/** Writes `text` as an overlay file and returns its path. */
function overlay(text: string): string {
  const path = join(dir, `overlay-${fileNo++}.json`)
  writeFileSync(path, text)
  return path
}

/** The effective dry-run configuration: the tree the mutations start from. */
const effective = loadSettings({ configDir: CONFIG_DIR, mode: 'dry-run', env: {} }).settings

/** An issue names where it is: `a.b.0.c: message`, `env KEY: message`, or a file path. */
const ISSUE_RE = /^(env )?[^\s:][^:]*: \S/

type Outcome = { ok: true } | { ok: false; error: ConfigError }

/** Loads, and fails the property on anything but success or a ConfigError with located issues. */
function load(options: Partial<LoadSettingsOptions>): Outcome {
  let thrown: unknown
  try {
    loadSettings({ configDir: CONFIG_DIR, mode: 'dry-run', env: {}, ...options })
    return { ok: true }
  } catch (e) {
    thrown = e
  }
  if (!(thrown instanceof ConfigError)) throw new Error(`not a ConfigError: ${brief(thrown)}`)
  expect(thrown.message).toMatch(/^invalid configuration \(\d+ problems?\)/)
  expect(thrown.issues.length).toBeGreaterThan(0)
  for (const issue of thrown.issues) expect(issue).toMatch(ISSUE_RE)
  return { ok: false, error: thrown }
}

/** Paths of objects the schema checks strictly (every object but the free-form strategy params). */
const strictObjectPaths = pathsOf(effective).filter((p) => {
  let v: unknown = effective
  for (const k of p) v = (v as Record<string | number, unknown>)[k]
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !p.includes('params')
})

describe('config loader fuzz', () => {
  it('mutated configuration trees load or fail with located issues', () => {
    let rejected = 0
    fc.assert(
      fc.property(mutated(effective), (tree) => {
        const r = load({ file: overlay(JSON.stringify(tree) ?? 'null') })
        if (!r.ok) rejected++
      }),
      fuzzParams(30),
    )
    expect(rejected).toBeGreaterThan(0)
  })

  it('an unknown key anywhere (also __proto__ and friends) is reported at its path', () => {
    fc.assert(
      fc.property(
        fc.nat(),
        fc.oneof(fc.constantFrom(...NASTY_KEYS), fc.string({ minLength: 1, maxLength: 12 })),
        hostileJson,
        (at, key, value) => {
          const path = strictObjectPaths[at % strictObjectPaths.length] ?? []
          const tree = structuredClone(effective) as unknown as Record<string, unknown>
          let target: Record<string | number, unknown> = tree
          for (const k of path) target = target[k] as Record<string | number, unknown>
          if (Object.hasOwn(target, key)) return
          // An own property, as JSON.parse makes it (assignment to `__proto__` would set the prototype).
          Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
          const r = load({ file: overlay(JSON.stringify(tree)) })
          if (r.ok)
            throw new Error(`unknown key ${JSON.stringify(key)} at ${path.join('.') || '(root)'} accepted`)
          const where = path.length > 0 ? path.join('.') : '(root)'
          expect(r.error.issues.some((i) => i.startsWith(`${where}: `))).toBe(true)
        },
      ),
      fuzzParams(40),
    )
  })

  it('a leaf of the wrong type is reported at its path', () => {
    const leaves = pathsOf(effective).filter((p) => {
      let v: unknown = effective
      for (const k of p) v = (v as Record<string | number, unknown>)[k]
      return (typeof v === 'number' || typeof v === 'boolean') && !p.includes('params')
    })
    fc.assert(
      fc.property(
        fc.nat(),
        fc.oneof(fc.string({ maxLength: 20 }), fc.constant(null), fc.array(fc.nat())),
        (at, value) => {
          const path = leaves[at % leaves.length] ?? []
          const tree = structuredClone(effective) as unknown as Record<string, unknown>
          let target: Record<string | number, unknown> = tree
          for (const k of path.slice(0, -1)) target = target[k] as Record<string | number, unknown>
          target[path[path.length - 1] as string] = value
          const r = load({ file: overlay(JSON.stringify(tree)) })
          if (r.ok) throw new Error(`${path.join('.')} = ${JSON.stringify(value)} accepted`)
          expect(r.error.issues.some((i) => i.startsWith(`${path.join('.')}: `))).toBe(true)
        },
      ),
      fuzzParams(25),
    )
  })

  it('overlay files that are not a JSON object, huge or deeply nested fail fast with a clear issue', () => {
    const texts = [
      '',
      'null',
      '[]',
      '"x"',
      '{',
      '{"mode":',
      '\u0000',
      JSON.stringify({ logging: { level: 'x'.repeat(300_000) } }),
      `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`,
      `{"risk":${'['.repeat(20_000)}${']'.repeat(20_000)}}`,
      `{"instruments":[${Array.from({ length: 5_000 }, () => '{"symbol":"X"}').join(',')}]}`,
    ]
    for (const text of texts) {
      // CPU time (load-proof): the refusal is fast work, not a parse of the whole tree.
      const cpu0 = process.cpuUsage()
      const r = load({ file: overlay(text) })
      expect(r.ok, text.slice(0, 40)).toBe(false)
      const cpu = process.cpuUsage(cpu0)
      expect((cpu.user + cpu.system) / 1_000).toBeLessThan(5_000)
    }
  })

  it('dotted CLI overrides with hostile paths and values load or fail with located issues', () => {
    const segment = fc.oneof(
      fc.constantFrom(...NASTY_KEYS, 'risk', 'ops', 'instruments', '0'),
      fc.string({ maxLength: 6 }),
    )
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 5 }), hostileJson, (segments, value) => {
        load({ overrides: { [segments.join('.')]: value } })
        // No override may leak onto Object.prototype.
        expect(Object.keys(Object.prototype)).toEqual([])
      }),
      fuzzParams(40),
    )
  })

  it('invalid environment values are reported as env issues, never echoed', () => {
    const keys = Object.keys(Secrets.shape)
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.constantFrom(...keys),
          fc.oneof(fc.string({ maxLength: 30 }), hostileScalar.map(String)),
          {
            minKeys: 1,
          },
        ),
        (env) => {
          const r = load({ env })
          if (r.ok) return
          for (const issue of r.error.issues) {
            if (!issue.startsWith('env ')) continue
            // Values are secrets: an issue names the variable, never its value.
            for (const v of Object.values(env)) if (v.length >= 8) expect(issue).not.toContain(v)
          }
        },
      ),
      fuzzParams(40),
    )
  })

  it('the CLI exits 2 on a generated invalid configuration and lists the issues', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.string({ minLength: 1, maxLength: 8 }), async (at, key) => {
        const path = strictObjectPaths[at % strictObjectPaths.length] ?? []
        const tree = structuredClone(effective) as unknown as Record<string, unknown>
        let target: Record<string | number, unknown> = tree
        for (const k of path) target = target[k] as Record<string | number, unknown>
        if (Object.hasOwn(target, key)) return
        target[key] = 1
        const err: string[] = []
        const code = await main(['config', '--config', overlay(JSON.stringify(tree))], {
          env: {},
          stdout: () => undefined,
          stderr: (l) => void err.push(l),
          configDir: CONFIG_DIR,
          isTty: false,
          signal: new AbortController().signal,
        })
        expect(code).toBe(2)
        expect(err[0]).toMatch(/^perpbot config: invalid configuration/)
        expect(err.slice(1).some((l) => l.startsWith('  - '))).toBe(true)
      }),
      fuzzParams(8),
    )
  })
})

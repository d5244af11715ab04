/**
 * The compiled command line (issue 36): `bin/perpbot.js` runs the build in dist/ (npm ci's `prepare`,
 * `npm test` builds it too) with no TypeScript loader anywhere in the process, finds the shipped
 * strategies compiled beside it and their sources' folder as the default plug-in folder without
 * loading a strategy twice; and a build older than its sources, or none, is refused with one message.
 */
import { spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { compiledName } from '../../src/strategy/registry.ts'

const ROOT = resolve(import.meta.dirname, '../..')
const BIN = join(ROOT, 'bin', 'perpbot.js')
// A resolve hook that fails the process on any TypeScript loader or compiler import.
const NO_COMPILER = `data:text/javascript,${encodeURIComponent(`
import { register } from 'node:module'
register('data:text/javascript,' + encodeURIComponent(
  'export async function resolve(s, c, next) {' +
  ' if (/^(tsx|typescript|esbuild)(\\\\/|$)/.test(s)) throw new Error("compiler loaded: " + s);' +
  ' return next(s, c) }'))
`)}`

function cli(args: readonly string[], cwd = ROOT, bin = BIN) {
  const r = spawnSync(process.execPath, ['--import', NO_COMPILER, bin, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, PERPBOT_BIN: '', NODE_OPTIONS: '' },
    timeout: 60_000,
  })
  return { code: r.status, out: r.stdout.trim(), err: r.stderr.trim() }
}

describe('the compiled CLI (dist/)', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }

  it('prints its version with no compiler loaded', () => {
    expect(cli(['--version'])).toMatchObject({ code: 0, out: `perpbot ${pkg.version}` })
  })

  it('checks the config with the shipped strategies, each loaded once (dist/strategies and its source)', () => {
    const r = cli(['config'])
    expect(r.err).not.toMatch(/duplicate strategy|compiler loaded|changed after the last build/)
    expect(r.code).toBe(0)
  })

  it('checks the config from any working directory (no strategies/ there: the shipped ones only)', () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'perpbot-cwd-'))
    try {
      const r = cli(['config'], elsewhere)
      expect(r.err).not.toMatch(/strategies directory does not exist/)
      expect(r.code).toBe(0)
    } finally {
      rmSync(elsewhere, { recursive: true, force: true })
    }
  })

  it('names the compiled module of a listed TypeScript one', () => {
    expect(compiledName('/a/indexPeg.ts')).toBe('/a/indexPeg.js')
    expect(compiledName('/a/x.mts')).toBe('/a/x.mjs')
    expect(compiledName('/a/x.js')).toBe('/a/x.js')
  })
})

describe('the launcher', () => {
  const dir = mkdtempSync(join(tmpdir(), 'perpbot-launcher-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  mkdirSync(join(dir, 'bin'))
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n')
  cpSync(BIN, join(dir, 'bin', 'perpbot.js'))
  const bin = join(dir, 'bin', 'perpbot.js')

  it('refuses to run without a build, and says how to make one', () => {
    const r = cli(['--version'], dir, bin)
    expect(r.code).toBe(2)
    expect(r.err).toMatch(/no compiled build in dist\/: run `npm run build`/)
  })

  it('runs the build, and refuses it once a source is newer', () => {
    mkdirSync(join(dir, 'dist', 'src', 'cli'), { recursive: true })
    mkdirSync(join(dir, 'src', 'cli'), { recursive: true })
    const main = join(dir, 'dist', 'src', 'cli', 'main.js')
    const source = join(dir, 'src', 'cli', 'main.ts')
    writeFileSync(source, 'export {}\n')
    writeFileSync(main, "process.stdout.write('compiled ran')\n")
    utimesSync(source, new Date(1_000_000), new Date(1_000_000))
    expect(cli([], dir, bin)).toMatchObject({ code: 0, out: 'compiled ran' })
    utimesSync(source, new Date(), new Date(Date.now() + 60_000))
    const r = cli([], dir, bin)
    expect(r.code).toBe(2)
    expect(r.err).toMatch(/src\/ changed after the last build \(dist\/\): run `npm run build`/)
  })
})

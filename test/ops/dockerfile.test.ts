/**
 * No Docker engine runs here, so this reads the Dockerfile and .dockerignore as text and pins the
 * properties that matter: official Node 24 base, production-only install, compiled JavaScript (no
 * compiler at run time, no compiler toolchain in the image), non-root user, tini as PID 1, a
 * node-based health check on the ops port, and a CMD whose entry file the build makes.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { PRODUCTION_NODE_OPTIONS } from '../../src/cli/productionNodeOptions.ts'
import { DEFAULT_OPS_PORT } from '../../src/ops/opsServer.ts'
import { OpsSettings } from '../../src/settings/schema.ts'

const ROOT = join(import.meta.dirname, '..', '..')

interface Instruction {
  keyword: string
  args: string
}

interface Stage {
  image: string
  name: string | undefined
  instructions: Instruction[]
}

/** Joins `\` continuations, drops comments, splits into stages by FROM, and expands pre-FROM ARGs. */
function parseDockerfile(text: string): { stages: Stage[] } {
  const logical: string[] = []
  let current = ''
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    if (current === '' && (line === '' || line.startsWith('#'))) continue
    if (line.startsWith('#')) continue
    if (line.endsWith('\\')) {
      current += `${line.slice(0, -1).trim()} `
      continue
    }
    logical.push((current + line).trim())
    current = ''
  }
  const globalArgs = new Map<string, string>()
  const stages: Stage[] = []
  for (const l of logical) {
    const m = /^(\S+)\s*(.*)$/.exec(l)
    if (!m) continue
    const keyword = (m[1] ?? '').toUpperCase()
    const args = m[2] ?? ''
    if (keyword === 'ARG' && stages.length === 0) {
      const [k, v] = args.split('=')
      if (k !== undefined && v !== undefined) globalArgs.set(k, v)
      continue
    }
    if (keyword === 'FROM') {
      const [image = '', as, name] = args.split(/\s+/)
      const expanded = image.replace(/\$\{?(\w+)\}?/g, (_, k: string) => globalArgs.get(k) ?? '')
      stages.push({ image: expanded, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] })
      continue
    }
    stages.at(-1)?.instructions.push({ keyword, args })
  }
  return { stages }
}

const dockerfile = parseDockerfile(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))
const finalStage = dockerfile.stages.at(-1) as Stage
const all = (stage: Stage, keyword: string): string[] =>
  stage.instructions.filter((i) => i.keyword === keyword).map((i) => i.args)
const one = (stage: Stage, keyword: string): string => {
  const found = all(stage, keyword)
  expect(found, `exactly one ${keyword}`).toHaveLength(1)
  return found[0] as string
}

describe('Dockerfile', () => {
  it('is multi-stage and every stage uses an official Node 24 image', () => {
    expect(dockerfile.stages.length).toBeGreaterThanOrEqual(2)
    for (const s of dockerfile.stages) expect(s.image).toMatch(/^node:24([.-]|$)/)
  })

  it('type-checks and compiles in the build stage with the full install (no emit on a type error)', () => {
    const build = dockerfile.stages[0] as Stage
    const runs = all(build, 'RUN').join('\n')
    expect(runs).toMatch(/\bnpm ci\b/)
    expect(runs).toMatch(/\bnpm run build\b/)
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>
    }
    expect(pkg.scripts.build).toMatch(/tsc -p tsconfig\.build\.json/)
    const config = JSON.parse(readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8')) as {
      compilerOptions: Record<string, unknown>
    }
    expect(config.compilerOptions).toMatchObject({ noEmit: false, noEmitOnError: true, outDir: 'dist' })
  })

  it('installs no compiler toolchain in any stage and runs no install script', () => {
    for (const st of dockerfile.stages) {
      for (const r of all(st, 'RUN'))
        expect(r).not.toMatch(/apt-get install\b.*\b(g\+\+|gcc|make|python3|build-essential)\b/)
      for (const r of all(st, 'RUN').filter((x) => /\bnpm (ci|prune)\b/.test(x)))
        expect(r).toMatch(/--ignore-scripts/)
    }
  })

  it('ships production dependencies only (pruned in the build stage, native addons built there), with NODE_ENV=production', () => {
    // better-sqlite3 is a native addon: the build stage (with the compilers) installs, type-checks,
    // then prunes to production modules; the final stage copies those modules and installs nothing.
    const build = dockerfile.stages.find((st) => st.name?.toLowerCase() === 'build')
    expect(build).toBeDefined()
    const buildRuns = build ? all(build, 'RUN') : []
    expect(buildRuns.some((r) => /\bnpm ci\b/.test(r))).toBe(true)
    expect(buildRuns.some((r) => /\bnpm prune\b[^&]*--omit=dev/.test(r))).toBe(true)
    const runs = all(finalStage, 'RUN')
    expect(runs.filter((r) => /\bnpm (ci|install)\b/.test(r))).toEqual([])
    expect(all(finalStage, 'COPY').some((c) => /--from=build\s+\/app\/node_modules\b/.test(c))).toBe(true)
    expect(all(finalStage, 'ENV').some((e) => /\bNODE_ENV=production\b/.test(e))).toBe(true)
  })

  it('runs as a non-root user', () => {
    const users = all(finalStage, 'USER')
    expect(users.length).toBeGreaterThan(0)
    const user = (users.at(-1) ?? '').split(':')[0]
    expect(['root', '0', '']).not.toContain(user)
  })

  it('uses tini as PID 1, installed from Debian in the final stage', () => {
    expect(JSON.parse(one(finalStage, 'ENTRYPOINT'))).toEqual(['/usr/bin/tini', '--'])
    expect(all(finalStage, 'RUN').some((r) => /apt-get install\b.*\btini\b/.test(r))).toBe(true)
  })

  it('checks health with node (no curl in slim images) against /livez on the exposed ops port', () => {
    const hc = one(finalStage, 'HEALTHCHECK')
    const cmd = JSON.parse(hc.slice(hc.indexOf('CMD') + 3).trim()) as string[]
    expect(cmd[0]).toBe('node')
    expect(hc).not.toMatch(/\b(curl|wget)\b/)
    const port = /127\.0\.0\.1:(\d+)\/livez/.exec(hc)?.[1]
    expect(Number(port)).toBe(DEFAULT_OPS_PORT)
    expect(Number(one(finalStage, 'EXPOSE'))).toBe(DEFAULT_OPS_PORT)
    expect(OpsSettings.parse({}).port).toBe(DEFAULT_OPS_PORT)
  })

  it('runs node with the production node options (src/cli/productionNodeOptions.ts), which the benches launch the bot with', () => {
    const options = all(finalStage, 'ENV')
      .map((e) => /\bNODE_OPTIONS="([^"]*)"/.exec(e)?.[1])
      .filter((o) => o !== undefined)
    expect(options).toEqual([PRODUCTION_NODE_OPTIONS.join(' ')])
  })

  it('starts the compiled CLI with node alone, from the build copied to the app root', () => {
    const cmd = JSON.parse(one(finalStage, 'CMD')) as string[]
    expect(cmd[0]).toBe('node')
    expect(cmd[1]).toBe('src/cli/main.js')
    expect(cmd.join(' ')).not.toMatch(/tsx|--import|--experimental/)
    // The build emits src/cli/main.ts as dist/src/cli/main.js; the image copies dist/src to src.
    expect(existsSync(join(ROOT, 'src', 'cli', 'main.ts'))).toBe(true)
    expect(all(finalStage, 'COPY')).toContain('--from=build /app/dist/src ./src')
    expect(all(finalStage, 'COPY')).toContain('--from=build /app/dist/strategies ./strategies')
  })

  it('binds the ops server beyond loopback only with the token the bot then requires, and says how', () => {
    const cmd = JSON.parse(one(finalStage, 'CMD')) as string[]
    const host = cmd[cmd.indexOf('--ops-host') + 1]
    expect(host).toBe('0.0.0.0')
    const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8')
    expect(text).toMatch(/PERPBOT_OPS_TOKEN/)
    expect(text).toMatch(/-p 127\.0\.0\.1:9464:9464/)
    // The health check talks to /livez, the one endpoint that needs no token.
    expect(one(finalStage, 'HEALTHCHECK')).not.toMatch(/authorization/i)
  })

  it('copies only sources that exist (bin/ is created by the build stage when absent, dist/ by its build)', () => {
    const build = dockerfile.stages[0] as Stage
    const fromBuild = all(finalStage, 'COPY').filter((c) => c.includes(`--from=${build.name}`))
    expect(fromBuild.length).toBeGreaterThan(0)
    for (const c of fromBuild) {
      const src = (c.split(/\s+/).at(-2) ?? '').replace(/^\/app\//, '')
      const ensured = all(build, 'RUN').some((r) => new RegExp(`mkdir -p ${src}\\b`).test(r))
      // dist/<x> is the build's output of the checked-in <x>.
      const compiledFrom = src.startsWith('dist/') ? src.slice('dist/'.length) : undefined
      const made = compiledFrom !== undefined && existsSync(join(ROOT, compiledFrom))
      expect(existsSync(join(ROOT, src)) || ensured || made, `${src} exists or is created`).toBe(true)
    }
  })
})

describe('.dockerignore', () => {
  const entries = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))

  it('keeps dependencies, git, tools, secrets, tests and coverage out of the build context', () => {
    for (const e of ['node_modules', '.git', '.tools', '.env', 'test', 'coverage'])
      expect(entries).toContain(e)
  })

  it('does not exclude anything the image needs', () => {
    for (const needed of [
      'src',
      'strategies',
      'config',
      'bin',
      'package.json',
      'package-lock.json',
      'tsconfig.json',
    ]) {
      expect(entries).not.toContain(needed)
    }
  })
})

/**
 * deploy/docker-compose.yml at the schema level: Redis without eviction or persistence,
 * PostgreSQL, three bots on two accounts (ACCOUNT=auto: one warm standby), each with every fleet
 * variable, a valid fleet config, every account's key files, a non-root read-only container with
 * writable state, a /livez health check, a stop grace above the exit policy, ports on loopback.
 * And the Dockerfile (read, no engine here) builds the native better-sqlite3 in the build stage.
 */
import { existsSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { accountSecretFiles, FLEET_ENV_REQUIRED, loadFleetConfig } from '../../src/fleet/fleetEnv.ts'
import { OpsSettings } from '../../src/settings/schema.ts'
import { arr, at, deployPath, obj, readYaml, str } from './manifests.ts'

const compose = obj(readYaml('docker-compose.yml'))
const services = obj(compose, 'services')
const bots = Object.keys(services).filter((n) => n.startsWith('bot-'))
const envOf = (name: string): Record<string, string> =>
  Object.fromEntries(Object.entries(obj(services, name, 'environment')).map(([k, v]) => [k, String(v)]))

describe('docker-compose.yml', () => {
  it('Redis: no eviction, no persistence, health-checked; PostgreSQL health-checked', () => {
    const cmd = arr(services, 'redis', 'command').join(' ')
    expect(cmd).toContain('--maxmemory-policy noeviction')
    expect(cmd).toMatch(/--save {2}--appendonly no/)
    expect(arr(services, 'redis', 'healthcheck', 'test')).toContain('ping')
    expect(arr(services, 'postgres', 'healthcheck', 'test')).toContain('pg_isready')
  })

  it('three bots on two accounts: every ordinary one and a warm standby', () => {
    expect(bots).toEqual(['bot-1', 'bot-2', 'bot-3'])
    for (const b of bots) {
      const env = envOf(b)
      for (const name of FLEET_ENV_REQUIRED) expect(env[name], `${b} ${name}`).toBeDefined()
      expect(env.DATABASE_URL).toMatch(/^postgres:\/\/[^:@]+@postgres:5432\//)
      const c = loadFleetConfig({ ...env, HOSTNAME: b })
      expect(c.choice).toEqual({ mode: 'auto' })
      expect(c.accounts.length).toBe(bots.length - 1)
      // The keys of every account it may claim are mounted where the bot looks for them.
      const secrets = arr(services, b, 'secrets').map(String)
      for (const a of c.accounts) {
        const files = accountSecretFiles(c.secretsDir, a)
        for (const f of [files.proxyPrivateKey, files.proxySecret]) {
          expect(f.startsWith('/run/secrets/')).toBe(true)
          expect(secrets).toContain(f.slice('/run/secrets/'.length))
        }
      }
    }
  })

  it('each bot: non-root, read-only, writable state and /tmp, health on /livez, grace above the exit policy, loopback ports', () => {
    const maxShutdownS = (OpsSettings.shape.shutdownTimeoutMs.unwrap().maxValue ?? 10_000) / 1000
    for (const b of bots) {
      const s = obj(services, b)
      expect(s.read_only).toBe(true)
      expect(str(s, 'user')).toMatch(/^[1-9]\d*:[1-9]\d*$/)
      expect(arr(s, 'cap_drop')).toEqual(['ALL'])
      const tmpfs = arr(s, 'tmpfs').map(String)
      expect(tmpfs.some((t) => t.startsWith(`/app/${OpsSettings.parse({}).stateDir}:`))).toBe(true)
      expect(tmpfs.some((t) => t.startsWith('/tmp:'))).toBe(true)
      expect(arr(s, 'healthcheck', 'test').join(' ')).toContain('/livez')
      expect(Number(str(s, 'stop_grace_period').replace(/s$/, ''))).toBeGreaterThanOrEqual(maxShutdownS + 10)
      for (const p of arr(s, 'ports')) expect(String(p)).toMatch(/^127\.0\.0\.1:/)
      expect(str(s, 'depends_on', 'redis', 'condition')).toBe('service_healthy')
      expect(str(s, 'depends_on', 'postgres', 'condition')).toBe('service_healthy')
      expect(arr(s, 'command')).toEqual(expect.arrayContaining(['run', '--live', '--fleet']))
    }
  })

  it('every secret is a file under deploy/secrets (ignored by git); the env example names the token', () => {
    for (const [, v] of Object.entries(obj(compose, 'secrets')))
      expect(str(v, 'file')).toMatch(/^\.\/secrets\//)
    expect(readFileSync(deployPath('secrets/.gitignore'), 'utf8')).toMatch(/^\*$/m)
    expect(readFileSync(deployPath('.gitignore'), 'utf8')).toMatch(/^fleet\.env$/m)
    const example = readFileSync(deployPath('fleet.env.example'), 'utf8')
    for (const name of ['PERPS_URL', 'PERPS_WS_URL', 'CATALOGUE_URL', 'PERPBOT_OPS_TOKEN'])
      expect(example).toMatch(new RegExp(`^${name}=`, 'm'))
    expect(str(at(services, 'bot-1'), 'env_file')).toBe('fleet.env')
  })
})

describe('Dockerfile', () => {
  const text = readFileSync(deployPath('../Dockerfile'), 'utf8')
  const stage = (name: string): string =>
    text.split(/^FROM /m).find((s) => new RegExp(` AS ${name}\\b`).test(s.split('\n')[0] ?? '')) ?? ''
  it('installs the prebuilt better-sqlite3 13 in the build stage (no compiler) and ships its modules to an identical base', () => {
    expect(existsSync(deployPath('../Dockerfile'))).toBe(true)
    const build = stage('build')
    const runtime = stage('runtime')
    expect(build).not.toMatch(/g\+\+|python3 make/)
    expect(build).toMatch(/npm ci --ignore-scripts/)
    expect(build).toMatch(/npm prune --omit=dev/)
    expect(build).toMatch(/rm -rf node_modules\/better-sqlite3\b/)
    expect(build).toMatch(/require\('better-sqlite3-napi'\)/)
    expect(runtime).toMatch(/COPY --from=build \/app\/node_modules \.\/node_modules/)
    expect(runtime).not.toMatch(/npm (ci|install)/)
    expect(runtime).not.toMatch(/g\+\+/)
    expect(text).toMatch(/^ARG NODE_IMAGE=node:24-/m)
    expect(text.match(/^FROM \$\{NODE_IMAGE\}/gm)?.length).toBe(2)
    expect(runtime).toMatch(/^USER node$/m)
  })
})

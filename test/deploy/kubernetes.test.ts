/**
 * The kustomize base, checked at the schema level (no cluster runs here): every resource the
 * kustomization names exists and parses; the bots' StatefulSet has probes on /livez and /readyz,
 * a termination grace above the exit policy's budget, a non-root read-only container with writable
 * state, resource requests above the measured rss, and every variable a fleet bot needs (secrets
 * by reference only); Redis never evicts and only the bots may reach it.
 */
import { existsSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { FLEET_ENV_REQUIRED, loadFleetConfig } from '../../src/fleet/fleetEnv.ts'
import { OpsSettings } from '../../src/settings/schema.ts'
import { arr, at, deployPath, isObj, mib, type Obj, obj, readYaml, str } from './manifests.ts'

const BASE = 'kubernetes/base'
const kustomization = obj(readYaml(`${BASE}/kustomization.yaml`))
const resources = arr(kustomization, 'resources').map((r) => String(r))
const docs: Obj[] = resources.map((r) => obj(readYaml(`${BASE}/${r}`)))
const find = (kind: string, name: string): Obj => {
  const d = docs.find((x) => x.kind === kind && str(x, 'metadata', 'name') === name)
  if (d === undefined) throw new Error(`no ${kind}/${name} in the base`)
  return d
}

const sts = find('StatefulSet', 'perpbot')
const pod = obj(sts, 'spec', 'template', 'spec')
const bot = obj(arr(pod, 'containers')[0])
const fleetCm = find('ConfigMap', 'perpbot-fleet')
const cmData = obj(fleetCm, 'data')
const envList = arr(bot, 'env').map((e) => obj(e))
const envNames = new Set([...envList.map((e) => str(e, 'name')), ...Object.keys(cmData)])
const opsDefaults = OpsSettings.parse({})

describe('kustomize base', () => {
  it('names only files that exist; each is one resource with apiVersion, kind and a name', () => {
    expect(str(kustomization, 'kind')).toBe('Kustomization')
    for (const r of resources) expect(existsSync(deployPath(`${BASE}/${r}`))).toBe(true)
    for (const d of docs) {
      expect(typeof d.apiVersion).toBe('string')
      expect(typeof d.kind).toBe('string')
      expect(str(d, 'metadata', 'name')).toMatch(/^[a-z0-9-]+$/)
    }
  })

  it('StatefulSet: headless service, matching selector, one pod per account (ordinal)', () => {
    const svc = find('Service', str(sts, 'spec', 'serviceName'))
    expect(str(svc, 'spec', 'clusterIP')).toBe('None')
    expect(obj(sts, 'spec', 'selector', 'matchLabels')).toEqual(
      obj(sts, 'spec', 'template', 'metadata', 'labels'),
    )
    expect(obj(svc, 'spec', 'selector')).toEqual(obj(sts, 'spec', 'selector', 'matchLabels'))
    expect(str(sts, 'spec', 'podManagementPolicy')).toBe('Parallel')
    const replicas = Number(at(sts, 'spec', 'replicas'))
    expect(str(cmData, 'ACCOUNT')).toBe('ordinal')
    // Every ordinal maps to an account, and each loads as a valid fleet config.
    for (let i = 0; i < replicas; i++) {
      const env = { ...Object.fromEntries(Object.entries(cmData).map(([k, v]) => [k, String(v)])) }
      const c = loadFleetConfig({
        ...env,
        FLEET_REDIS_URL: 'redis://:pw@perpbot-redis:6379',
        POD_NAME: `perpbot-${i}`,
      })
      expect(c.choice.mode).toBe('fixed')
    }
    expect(str(cmData, 'FLEET_ACCOUNTS').split(',').length).toBe(replicas)
  })

  it('probes: startup and liveness on /livez (no Redis dependency), readiness on /readyz with the token', () => {
    const port = arr(bot, 'ports')
      .map((p) => obj(p))
      .find((p) => p.name === 'ops')
    expect(port?.containerPort).toBe(opsDefaults.port)
    expect(str(bot, 'livenessProbe', 'httpGet', 'path')).toBe('/livez')
    expect(str(bot, 'startupProbe', 'httpGet', 'path')).toBe('/livez')
    const ready = arr(bot, 'readinessProbe', 'exec', 'command').join(' ')
    expect(ready).toContain(`127.0.0.1:${opsDefaults.port}/readyz`)
    expect(ready).toContain('process.env.PERPBOT_OPS_TOKEN')
    expect(arr(bot, 'args')).toEqual(
      expect.arrayContaining(['run', '--live', '--fleet', '--ops-host', '0.0.0.0']),
    )
  })

  it('termination grace covers the exit policy (ops.shutdownTimeoutMs at its maximum) with room to spare', () => {
    const maxShutdownS = (OpsSettings.shape.shutdownTimeoutMs.unwrap().maxValue ?? 10_000) / 1000
    expect(Number(at(pod, 'terminationGracePeriodSeconds'))).toBeGreaterThanOrEqual(maxShutdownS + 10)
  })

  it('non-root, read-only root filesystem, no privilege escalation, writable state and /tmp', () => {
    expect(at(pod, 'securityContext', 'runAsNonRoot')).toBe(true)
    expect(Number(at(pod, 'securityContext', 'runAsUser'))).toBeGreaterThan(0)
    expect(str(pod, 'securityContext', 'seccompProfile', 'type')).toBe('RuntimeDefault')
    expect(at(bot, 'securityContext', 'readOnlyRootFilesystem')).toBe(true)
    expect(at(bot, 'securityContext', 'allowPrivilegeEscalation')).toBe(false)
    expect(arr(bot, 'securityContext', 'capabilities', 'drop')).toEqual(['ALL'])
    expect(at(pod, 'automountServiceAccountToken')).toBe(false)
    const mounts = arr(bot, 'volumeMounts').map((m) => obj(m))
    const volumes = arr(pod, 'volumes').map((v) => obj(v))
    const writable = (path: string): boolean => {
      const m = mounts.find((x) => x.mountPath === path)
      const v = volumes.find((x) => x.name === m?.name)
      return m !== undefined && m.readOnly !== true && v !== undefined && isObj(v.emptyDir)
    }
    expect(writable(`/app/${opsDefaults.stateDir}`)).toBe(true)
    expect(writable('/tmp')).toBe(true)
  })

  it('resources: memory request above the measured rss peak (273 MB, docs/benchmarks.md), a limit above it', () => {
    const req = mib(str(bot, 'resources', 'requests', 'memory'))
    const lim = mib(str(bot, 'resources', 'limits', 'memory'))
    expect(req).toBeGreaterThanOrEqual(273_000_000 / 2 ** 20)
    expect(lim).toBeGreaterThan(req)
    expect(str(bot, 'resources', 'requests', 'cpu')).toMatch(/^\d+m?$/)
  })

  it('env: every fleet variable, venue URLs; secrets only by reference; keys mounted at FLEET_SECRETS_DIR', () => {
    for (const name of [
      ...FLEET_ENV_REQUIRED,
      'PERPS_URL',
      'PERPS_WS_URL',
      'CATALOGUE_URL',
      'PERPBOT_OPS_TOKEN',
      'DATABASE_URL',
      'POD_NAME',
    ])
      expect(envNames, name).toContain(name)
    const byName = (n: string): Obj => {
      const e = envList.find((x) => x.name === n)
      if (e === undefined) throw new Error(`no env ${n}`)
      return e
    }
    for (const secret of ['FLEET_REDIS_URL', 'DATABASE_URL', 'PERPBOT_OPS_TOKEN']) {
      expect(byName(secret).value).toBeUndefined()
      expect(str(byName(secret), 'valueFrom', 'secretKeyRef', 'name')).toMatch(/^perpbot-/)
    }
    expect(str(byName('POD_NAME'), 'valueFrom', 'fieldRef', 'fieldPath')).toBe('metadata.name')
    expect(JSON.stringify(docs)).not.toMatch(/0x[0-9a-fA-F]{64}/)
    const keys = arr(bot, 'volumeMounts')
      .map((m) => obj(m))
      .find((m) => m.mountPath === cmData.FLEET_SECRETS_DIR)
    expect(keys?.readOnly).toBe(true)
    const vol = arr(pod, 'volumes')
      .map((v) => obj(v))
      .find((v) => v.name === keys?.name)
    expect(str(vol, 'secret', 'secretName')).toBe('perpbot-accounts')
  })

  it('Redis: one primary, recreated not rolled, no eviction, no persistence; only bots reach it', () => {
    const redis = find('Deployment', 'perpbot-redis')
    expect(at(redis, 'spec', 'replicas')).toBe(1)
    expect(str(redis, 'spec', 'strategy', 'type')).toBe('Recreate')
    const conf = str(find('ConfigMap', 'perpbot-redis'), 'data', 'redis.conf')
    expect(conf).toMatch(/^maxmemory-policy noeviction$/m)
    expect(conf).toMatch(/^save ""$/m)
    expect(conf).toMatch(/^appendonly no$/m)
    const c = obj(arr(redis, 'spec', 'template', 'spec', 'containers')[0])
    expect(at(c, 'securityContext', 'readOnlyRootFilesystem')).toBe(true)
    expect(at(redis, 'spec', 'template', 'spec', 'securityContext', 'runAsNonRoot')).toBe(true)
    const np = find('NetworkPolicy', 'perpbot-redis')
    expect(obj(np, 'spec', 'podSelector', 'matchLabels')).toEqual(
      obj(redis, 'spec', 'selector', 'matchLabels'),
    )
    const from = obj(arr(np, 'spec', 'ingress')[0])
    expect(obj(from, 'from', 0, 'podSelector', 'matchLabels')).toEqual(
      obj(sts, 'spec', 'selector', 'matchLabels'),
    )
    expect(at(from, 'ports', 0, 'port')).toBe(6379)
    const svc = find('Service', 'perpbot-redis')
    expect(obj(svc, 'spec', 'selector')).toEqual(obj(redis, 'spec', 'selector', 'matchLabels'))
  })

  it('the example overlay runs N+1 bots on ACCOUNT=auto (one warm standby)', () => {
    const overlay = obj(readYaml('kubernetes/overlays/example/kustomization.yaml'))
    expect(arr(overlay, 'resources')).toEqual(['../../base'])
    const count = Number(at(overlay, 'replicas', 0, 'count'))
    expect(count).toBe(str(cmData, 'FLEET_ACCOUNTS').split(',').length + 1)
    expect(str(overlay, 'patches', 0, 'patch')).toMatch(/path: \/data\/ACCOUNT\s+value: auto/)
  })
})

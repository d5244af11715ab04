import { describe, expect, it } from 'vitest'
import { accountSecretFiles, loadFleetConfig, ordinalOf } from '../../src/fleet/fleetEnv.ts'

const base = {
  FLEET_REDIS_URL: 'redis://:pw@redis:6379',
  FLEET_ACCOUNTS: 'main,hedge,alt',
  FLEET_EGRESS_ID: 'nat-a',
  FLEET_SECRETS_DIR: '/var/run/secrets/perpbot',
}

describe('fleet environment', () => {
  it('ACCOUNT=ordinal maps the StatefulSet ordinal to the list', () => {
    const c = loadFleetConfig({ ...base, ACCOUNT: 'ordinal', POD_NAME: 'perpbot-2' }, 7)
    expect(c.choice).toEqual({ mode: 'fixed', account: 'alt' })
    expect(c.holderId).toBe('perpbot-2.7')
    expect(c.budget).toBe(900)
    expect(c.leaseTtlMs).toBe(10_000)
  })
  it('FLEET_ARRIVAL_GUARD_MS: unset leaves the budget its default; a negative or huge guard is refused', () => {
    expect(loadFleetConfig({ ...base, ACCOUNT: 'auto' }).arrivalGuardMs).toBeUndefined()
    expect(loadFleetConfig({ ...base, ACCOUNT: 'auto', FLEET_ARRIVAL_GUARD_MS: '0' }).arrivalGuardMs).toBe(0)
    expect(() => loadFleetConfig({ ...base, ACCOUNT: 'auto', FLEET_ARRIVAL_GUARD_MS: '-1' })).toThrow(
      /FLEET_ARRIVAL_GUARD_MS/,
    )
    expect(() => loadFleetConfig({ ...base, ACCOUNT: 'auto', FLEET_ARRIVAL_GUARD_MS: '9000' })).toThrow(
      /FLEET_ARRIVAL_GUARD_MS/,
    )
  })
  it('ACCOUNT=auto and a named account', () => {
    expect(loadFleetConfig({ ...base, ACCOUNT: 'auto' }).choice).toEqual({ mode: 'auto' })
    expect(loadFleetConfig({ ...base, ACCOUNT: 'hedge' }).choice).toEqual({ mode: 'fixed', account: 'hedge' })
  })
  it('names each problem by its variable, never printing the Redis password', () => {
    const bad = (env: Record<string, string>) => {
      try {
        loadFleetConfig(env)
        return ''
      } catch (e) {
        return e instanceof Error ? e.message : ''
      }
    }
    expect(bad({ ...base, ACCOUNT: 'ordinal', POD_NAME: 'perpbot-3' })).toMatch(
      /POD_NAME perpbot-3 has no ordinal/,
    )
    expect(bad({ ...base, ACCOUNT: 'other' })).toMatch(/ACCOUNT: other is not in FLEET_ACCOUNTS/)
    expect(bad({ ...base, ACCOUNT: 'auto', FLEET_BUDGET: '1500' })).toMatch(/FLEET_BUDGET/)
    const m = bad({ ...base, ACCOUNT: 'auto', FLEET_REDIS_URL: 'http://:secretpw@x' })
    expect(m).toMatch(/FLEET_REDIS_URL: must start with redis:\/\//)
    expect(m).not.toMatch(/secretpw/)
    expect(bad({ ACCOUNT: 'auto' })).toMatch(/FLEET_REDIS_URL[\s\S]*FLEET_ACCOUNTS[\s\S]*FLEET_EGRESS_ID/)
  })
  it('ordinals and secret files', () => {
    expect(ordinalOf('perpbot-12')).toBe(12)
    expect(ordinalOf('perpbot')).toBeUndefined()
    expect(accountSecretFiles('/s', 'main')).toEqual({
      proxyPrivateKey: '/s/main.proxy-private-key',
      proxySecret: '/s/main.proxy-secret',
    })
  })
})

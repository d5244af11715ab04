/**
 * The fleet's settings, from the environment (what the Kubernetes manifests and docker-compose.yml
 * set for each bot), and which account this process serves:
 *   ACCOUNT=auto     the first free account of FLEET_ACCOUNTS (N+1 processes: one warm standby)
 *   ACCOUNT=ordinal  the StatefulSet ordinal (POD_NAME `perpbot-2` → the third account)
 *   ACCOUNT=<name>   that account (it must be in the list)
 * Either way the account is leased before anything is sent, so two processes never trade it.
 * Each account's keys are files in FLEET_SECRETS_DIR (a mounted Secret), read only for the account
 * this process holds: `<account>.proxy-private-key`, `<account>.proxy-secret`.
 */
import { join } from 'node:path'
import { z } from 'zod'
import { ConfigError } from '../errors.ts'
import { parseAccountList } from './accountClaim.ts'
import { parseFleetRedisUrl } from './redisConnection.ts'

/** The variables every fleet bot needs (the deployment tests check each bot sets them). */
export const FLEET_ENV_REQUIRED = [
  'FLEET_REDIS_URL',
  'FLEET_ACCOUNTS',
  'ACCOUNT',
  'FLEET_EGRESS_ID',
  'FLEET_SECRETS_DIR',
] as const

const Name = /^[A-Za-z0-9._-]{1,64}$/

export const FleetEnv = z.object({
  FLEET_REDIS_URL: z.string().min(1),
  FLEET_ACCOUNTS: z.string().min(1),
  ACCOUNT: z.string().regex(/^(auto|ordinal|[A-Za-z0-9._-]{1,64})$/, 'auto, ordinal or an account name'),
  FLEET_EGRESS_ID: z.string().regex(Name, '1-64 characters of A-Z a-z 0-9 . _ -'),
  FLEET_SECRETS_DIR: z.string().min(1),
  /** The egress's request weight per minute for the whole fleet (the venue's 1,000 less a margin). */
  FLEET_BUDGET: z.coerce.number().int().positive().max(1_000).default(900),
  FLEET_LEASE_TTL_MS: z.coerce.number().int().min(3_000).max(60_000).default(10_000),
  /** The budget's window: the venue's minute; benches compress it. */
  FLEET_WINDOW_MS: z.coerce.number().int().min(1_000).max(60_000).default(60_000),
  /** How much longer than the window an admission counts (SharedBudgetOptions.arrivalGuardMs). */
  FLEET_ARRIVAL_GUARD_MS: z.coerce.number().int().min(0).max(5_000).optional(),
  /** The pod's name (Downward API), for ACCOUNT=ordinal and as the lease holder id. */
  POD_NAME: z.string().optional(),
  HOSTNAME: z.string().optional(),
})

export type AccountChoice = { readonly mode: 'auto' } | { readonly mode: 'fixed'; readonly account: string }

export interface FleetConfig {
  readonly redisUrl: string
  readonly accounts: readonly string[]
  readonly choice: AccountChoice
  readonly egressId: string
  readonly secretsDir: string
  readonly budget: number
  readonly leaseTtlMs: number
  readonly windowMs: number
  /** Undefined: the budget's default (min(250 ms, window / 40)). */
  readonly arrivalGuardMs: number | undefined
  /** Lease holder id: the pod or host name and the pid. */
  readonly holderId: string
}

/** The StatefulSet ordinal at the end of a pod name (`perpbot-12` → 12). */
export function ordinalOf(podName: string): number | undefined {
  const m = /-(\d+)$/.exec(podName)
  return m === null ? undefined : Number(m[1])
}

/**
 * Reads and checks the fleet's environment; every problem is reported with its variable.
 * @throws {@link ConfigError}
 */
export function loadFleetConfig(
  env: Readonly<Record<string, string | undefined>>,
  pid = process.pid,
): FleetConfig {
  const parsed = FleetEnv.safeParse(env)
  if (!parsed.success)
    throw new ConfigError(
      'invalid fleet settings',
      parsed.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`),
    )
  const e = parsed.data
  parseFleetRedisUrl(e.FLEET_REDIS_URL)
  let accounts: string[]
  try {
    accounts = parseAccountList(e.FLEET_ACCOUNTS)
  } catch (err) {
    throw new ConfigError('invalid fleet settings', [err instanceof Error ? err.message : String(err)])
  }
  const host = e.POD_NAME ?? e.HOSTNAME ?? 'local'
  let choice: AccountChoice
  if (e.ACCOUNT === 'auto') choice = { mode: 'auto' }
  else if (e.ACCOUNT === 'ordinal') {
    const n = e.POD_NAME === undefined ? undefined : ordinalOf(e.POD_NAME)
    const account = n === undefined ? undefined : accounts[n]
    if (account === undefined)
      throw new ConfigError('invalid fleet settings', [
        `ACCOUNT=ordinal: POD_NAME ${e.POD_NAME ?? '(unset)'} has no ordinal within FLEET_ACCOUNTS (${accounts.length} accounts)`,
      ])
    choice = { mode: 'fixed', account }
  } else {
    if (!accounts.includes(e.ACCOUNT))
      throw new ConfigError('invalid fleet settings', [`ACCOUNT: ${e.ACCOUNT} is not in FLEET_ACCOUNTS`])
    choice = { mode: 'fixed', account: e.ACCOUNT }
  }
  return {
    redisUrl: e.FLEET_REDIS_URL,
    accounts,
    choice,
    egressId: e.FLEET_EGRESS_ID,
    secretsDir: e.FLEET_SECRETS_DIR,
    budget: e.FLEET_BUDGET,
    leaseTtlMs: e.FLEET_LEASE_TTL_MS,
    windowMs: e.FLEET_WINDOW_MS,
    arrivalGuardMs: e.FLEET_ARRIVAL_GUARD_MS,
    holderId: `${host.replace(/:/g, '_')}.${pid}`,
  }
}

/** Where an account's keys are (files of the mounted Secret). */
export function accountSecretFiles(
  secretsDir: string,
  account: string,
): { proxyPrivateKey: string; proxySecret: string } {
  return {
    proxyPrivateKey: join(secretsDir, `${account}.proxy-private-key`),
    proxySecret: join(secretsDir, `${account}.proxy-secret`),
  }
}

/** What `perpbot status --fleet` needs: Redis, the account list, the egress and its budget. */
export function loadFleetStatusConfig(env: Readonly<Record<string, string | undefined>>): {
  redisUrl: string
  accounts: string[]
  egressId: string
  budget: number
  windowMs: number
} {
  const parsed = FleetEnv.pick({
    FLEET_REDIS_URL: true,
    FLEET_ACCOUNTS: true,
    FLEET_EGRESS_ID: true,
    FLEET_BUDGET: true,
    FLEET_WINDOW_MS: true,
  }).safeParse(env)
  if (!parsed.success)
    throw new ConfigError(
      'invalid fleet settings',
      parsed.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`),
    )
  parseFleetRedisUrl(parsed.data.FLEET_REDIS_URL)
  let accounts: string[]
  try {
    accounts = parseAccountList(parsed.data.FLEET_ACCOUNTS)
  } catch (err) {
    throw new ConfigError('invalid fleet settings', [err instanceof Error ? err.message : String(err)])
  }
  return {
    redisUrl: parsed.data.FLEET_REDIS_URL,
    accounts,
    egressId: parsed.data.FLEET_EGRESS_ID,
    budget: parsed.data.FLEET_BUDGET,
    windowMs: parsed.data.FLEET_WINDOW_MS,
  }
}

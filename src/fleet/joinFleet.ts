/**
 * `perpbot run --fleet`, before the bot starts: read the fleet's environment, connect to Redis, hold
 * an account (standby until one is free), and read that account's keys from its files. The bot then
 * starts with the returned part; `close` releases the lease and the connection after its stop.
 */
import { readFileSync } from 'node:fs'
import { ConfigError } from '../errors.ts'
import type { Logger } from '../logging/logger.ts'
import { claimFirstFree } from './accountClaim.ts'
import { AccountLease } from './accountLease.ts'
import { accountSecretFiles, type FleetConfig, loadFleetConfig } from './fleetEnv.ts'
import { createFleetPart, type FleetPart } from './fleetPart.ts'
import { connectFleetRedis } from './redisConnection.ts'
import { createSharedBudget, type SharedBudget } from './sharedBudget.ts'
import { type StandbyProbe, startStandbyProbe } from './standbyProbe.ts'

export interface JoinedFleet {
  readonly config: FleetConfig
  readonly lease: AccountLease
  readonly budget: SharedBudget
  readonly part: FleetPart
  /** The held account's keys, as the variables the bot's settings read. */
  readonly accountEnv: Readonly<Record<'PERPS_PROXY_PRIVATE_KEY' | 'PERPS_PROXY_SECRET', string>>
  /** Releases the lease (if still held) and closes the connection. */
  close(): Promise<void>
}

function readKey(path: string, what: string): string {
  try {
    const v = readFileSync(path, 'utf8').trim()
    if (v === '') throw new Error('empty')
    return v
  } catch (e) {
    throw new ConfigError('fleet account keys unreadable', [
      `${what}: ${path}: ${e instanceof Error && 'code' in e ? String(e.code) : 'empty or unreadable'}`,
    ])
  }
}

export async function joinFleet(o: {
  env: Readonly<Record<string, string | undefined>>
  logger: Logger
  /** Aborts the standby wait (SIGTERM while no account is free). */
  signal?: AbortSignal | undefined
  /** Where to answer /livez while standing by (the ops address); absent: no probe. */
  probe?: { host: string; port: number } | undefined
}): Promise<JoinedFleet> {
  const config = loadFleetConfig(o.env)
  const log = o.logger.child({ component: 'fleet' })
  let redisDown = false
  const redis = connectFleetRedis(config.redisUrl, {
    onError: (e) => {
      if (!redisDown) log.warn({ err: e.message }, 'fleet Redis unreachable; retrying')
      redisDown = true
    },
  })
  redis.on('ready', () => {
    if (redisDown) log.info('fleet Redis reachable again')
    redisDown = false
  })
  const accounts = config.choice.mode === 'auto' ? config.accounts : [config.choice.account]
  let standbyLogged = false
  let held: AccountLease | undefined
  let probe: Promise<StandbyProbe | undefined> | undefined
  const closeProbe = async (): Promise<void> => {
    const p = probe
    probe = undefined
    await (await p)?.close()
  }
  try {
    const lease = await claimFirstFree({
      client: redis,
      accounts,
      signal: o.signal,
      lease: (account) =>
        new AccountLease({ client: redis, account, holderId: config.holderId, ttlMs: config.leaseTtlMs }),
      onStandby: (view) => {
        if (standbyLogged) return
        standbyLogged = true
        if (o.probe !== undefined)
          probe = startStandbyProbe(o.probe.host, o.probe.port).catch((e: unknown) => {
            log.warn({ err: String(e) }, 'fleet: standby probe not served')
            return undefined
          })
        log.info(
          { holders: view.map((v) => ({ account: v.account, holder: v.holder })) },
          `fleet: standing by, no free account among ${accounts.join(', ')}`,
        )
      },
    })
    held = lease
    await closeProbe()
    const files = accountSecretFiles(config.secretsDir, lease.account)
    const accountEnv = {
      PERPS_PROXY_PRIVATE_KEY: readKey(files.proxyPrivateKey, `${lease.account} proxy private key`),
      PERPS_PROXY_SECRET: readKey(files.proxySecret, `${lease.account} proxy secret`),
    }
    const budget = createSharedBudget({
      client: redis,
      egressId: config.egressId,
      budget: config.budget,
      windowMs: config.windowMs,
    })
    const part = createFleetPart({ lease, budget, egressId: config.egressId })
    log.info(
      { account: lease.account, epoch: lease.epoch, holder: config.holderId, egress: config.egressId },
      `fleet: holding ${lease.account} (epoch ${lease.epoch})`,
    )
    return {
      config,
      lease,
      budget,
      part,
      accountEnv,
      async close() {
        budget.stop()
        await lease.release()
        lease.stop()
        redis.disconnect()
      },
    }
  } catch (e) {
    await closeProbe()
    // Nothing started: give the account back at once rather than after its TTL.
    await held?.release()
    held?.stop()
    redis.disconnect()
    throw e
  }
}

/**
 * `perpbot run --fleet`, before the bot starts. `openFleet` reads the fleet's environment, connects
 * to Redis and reads the keys of every account this process may hold; the CLI then does all that
 * needs no account ownership (config, preflight of each candidate, the venue link: a warm standby).
 * `claim` holds an account (standby until one is free) and returns the bot's fleet part; `close`
 * releases the lease and the connection after the bot's stop.
 */
import { readFileSync } from 'node:fs'
import { ConfigError } from '../errors.ts'
import { componentLogger, type Logger } from '../logging/logger.ts'
import type { RequestGate } from '../perps/client/context.ts'
import { OPEN_GATE } from '../perps/throttle/requestGate.ts'
import { claimFirstFree, claimIfFree } from './accountClaim.ts'
import { AccountLease } from './accountLease.ts'
import { accountSecretFiles, type FleetConfig, loadFleetConfig } from './fleetEnv.ts'
import { createFleetPart, type FleetPart } from './fleetPart.ts'
import { type BotReportBody, type HolderReports, startHolderReports } from './fleetReport.ts'
import { readFleetView } from './fleetView.ts'
import { connectFleetRedis } from './redisConnection.ts'
import { createSharedBudget, type SharedBudget } from './sharedBudget.ts'
import { withSharedBudget } from './sharedGate.ts'
import { type StandbyProbe, startStandbyProbe } from './standbyProbe.ts'

/** An account's keys, as the variables the bot's settings read. */
export type AccountEnv = Readonly<Record<'PERPS_PROXY_PRIVATE_KEY' | 'PERPS_PROXY_SECRET', string>>

export interface CandidateAccount {
  readonly account: string
  readonly env: AccountEnv
}

export interface JoinedFleet {
  readonly config: FleetConfig
  readonly lease: AccountLease
  readonly budget: SharedBudget
  readonly part: FleetPart
  /** The held account's keys. */
  readonly accountEnv: AccountEnv
  /** Writes this holder's report (bot state, PnL, its weight) for the fleet's view while held. */
  startReports(read: () => BotReportBody): HolderReports
  /** Releases the lease (if still held) and closes the connection. */
  close(): Promise<void>
}

export interface FleetSession {
  readonly config: FleetConfig
  /** Every account this process may hold, with its keys (read before any lease). */
  readonly candidates: readonly CandidateAccount[]
  /**
   * The gate of what is sent before a lease is held (the preflight, the venue link): the shared IP
   * budget only, with no fence, since nothing sent then writes for an account.
   */
  readonly standbyGate: RequestGate
  /**
   * Holds the first free candidate (standby while none is free; `signal` ends the wait). `probe`:
   * where to answer /livez while standing by. A candidate left out by `exclude` is never claimed.
   */
  claim(o: {
    signal?: AbortSignal | undefined
    probe?: { host: string; port: number } | undefined
    exclude?: ReadonlySet<string> | undefined
  }): Promise<JoinedFleet>
  /** One look: holds the first free candidate, or undefined when every one is held (no standby). */
  claimNow(o: {
    signal?: AbortSignal | undefined
    exclude?: ReadonlySet<string> | undefined
  }): Promise<JoinedFleet | undefined>
  /** Closes the connection (a session whose claim never succeeded). */
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

function accountEnvOf(config: FleetConfig, account: string): AccountEnv {
  const files = accountSecretFiles(config.secretsDir, account)
  return {
    PERPS_PROXY_PRIVATE_KEY: readKey(files.proxyPrivateKey, `${account} proxy private key`),
    PERPS_PROXY_SECRET: readKey(files.proxySecret, `${account} proxy secret`),
  }
}

export function openFleet(o: {
  env: Readonly<Record<string, string | undefined>>
  logger: Logger
}): FleetSession {
  const config = loadFleetConfig(o.env)
  const accounts = config.choice.mode === 'auto' ? config.accounts : [config.choice.account]
  // Every candidate's keys are read now: a standby must not find a missing key file at hand-over.
  const candidates = accounts.map((account) => ({ account, env: accountEnvOf(config, account) }))
  const log = componentLogger(o.logger, 'fleet')
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
  const budget = createSharedBudget({
    client: redis,
    egressId: config.egressId,
    budget: config.budget,
    windowMs: config.windowMs,
    arrivalGuardMs: config.arrivalGuardMs,
  })
  const closeAll = async (): Promise<void> => {
    budget.stop()
    redis.disconnect()
  }

  const newLease = (account: string): AccountLease =>
    new AccountLease({ client: redis, account, holderId: config.holderId, ttlMs: config.leaseTtlMs })
  const poolOf = (exclude: ReadonlySet<string> | undefined): CandidateAccount[] => {
    const pool = candidates.filter((a) => !exclude?.has(a.account))
    if (pool.length === 0)
      throw new ConfigError('no fleet account can be held', [
        `every account this process may hold failed its checks: ${accounts.join(', ')}`,
      ])
    return pool
  }
  function joinedOf(lease: AccountLease, pool: readonly CandidateAccount[]): JoinedFleet {
    const accountEnv = pool.find((a) => a.account === lease.account)?.env
    if (accountEnv === undefined) throw new TypeError(`claimed ${lease.account}, not a candidate`)
    const part = createFleetPart({
      lease,
      budget,
      egressId: config.egressId,
      view: () =>
        readFleetView(redis, {
          accounts: config.accounts,
          egressId: config.egressId,
          budget: config.budget,
          windowMs: config.windowMs,
        }),
    })
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
      startReports: (read) =>
        startHolderReports({
          client: redis,
          account: lease.account,
          holder: config.holderId,
          epoch: part.epoch,
          held: () => lease.canWrite(),
          ownWeight: () => budget.state().ownWindowWeight,
          read,
        }),
      async close() {
        await lease.release()
        lease.stop()
        await closeAll()
      },
    }
  }

  async function claimNow(c: Parameters<FleetSession['claimNow']>[0]): Promise<JoinedFleet | undefined> {
    const pool = poolOf(c.exclude)
    const lease = await claimIfFree({
      client: redis,
      accounts: pool.map((a) => a.account),
      signal: c.signal,
      lease: newLease,
    })
    return lease === undefined ? undefined : joinedOf(lease, pool)
  }

  async function claim(c: Parameters<FleetSession['claim']>[0]): Promise<JoinedFleet> {
    const pool = poolOf(c.exclude)
    const names = pool.map((a) => a.account)
    let standbyLogged = false
    let probe: Promise<StandbyProbe | undefined> | undefined
    const closeProbe = async (): Promise<void> => {
      const p = probe
      probe = undefined
      await (await p)?.close()
    }
    let held: AccountLease | undefined
    try {
      const lease = await claimFirstFree({
        client: redis,
        accounts: names,
        signal: c.signal,
        lease: newLease,
        // Two of the holders' renew periods (AccountLease renews every TTL / 5).
        dataLossDeferMs: 2 * Math.floor(config.leaseTtlMs / 5),
        onStandby: (view) => {
          if (standbyLogged) return
          standbyLogged = true
          if (c.probe !== undefined)
            probe = startStandbyProbe(c.probe.host, c.probe.port).catch((e: unknown) => {
              log.warn({ err: String(e) }, 'fleet: standby probe not served')
              return undefined
            })
          log.info(
            { holders: view.map((v) => ({ account: v.account, holder: v.holder })) },
            `fleet: standing by, no free account among ${names.join(', ')}`,
          )
        },
      })
      held = lease
      await closeProbe()
      return joinedOf(lease, pool)
    } catch (e) {
      await closeProbe()
      // Nothing started: give the account back at once rather than after its TTL.
      await held?.release()
      held?.stop()
      throw e
    }
  }

  return {
    config,
    candidates,
    standbyGate: withSharedBudget(OPEN_GATE, budget),
    claim,
    claimNow,
    close: closeAll,
  }
}

/** Opens the fleet and holds an account at once (the tests' and simple callers' path). */
export async function joinFleet(o: {
  env: Readonly<Record<string, string | undefined>>
  logger: Logger
  signal?: AbortSignal | undefined
  probe?: { host: string; port: number } | undefined
}): Promise<JoinedFleet> {
  const session = openFleet(o)
  try {
    return await session.claim({ signal: o.signal, probe: o.probe })
  } catch (e) {
    await session.close()
    throw e
  }
}

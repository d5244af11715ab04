/**
 * `ACCOUNT=auto`: claim the first free account of a configured list; when every account is held,
 * stand by and try again when the soonest lease could lapse. The choice is pure (`nextClaim`, over
 * one look at every lease); the loop around it does the Redis calls.
 */
import { type Clock, systemClock, type TimerId } from '../clock.ts'
import { InputValidationError } from '../errors.ts'
import type { AccountLease } from './accountLease.ts'
import { leaseKeys, PEEK_LUA } from './leaseScripts.ts'
import { LuaScript, type ScriptClient } from './redisScript.ts'

export interface LeaseView {
  readonly account: string
  /** The holder's token (`<epoch>:<holder>`), or undefined when free. */
  readonly holder: string | undefined
  /** Ms until the lease lapses unless renewed (undefined when free). */
  readonly ttlMs: number | undefined
  /** Whether the account's epoch counter exists (false: never held, or Redis lost its data). */
  readonly known: boolean
}

export type ClaimStep = { readonly try: string } | { readonly waitMs: number }

/**
 * The first free account in list order; else wait until the soonest lease could lapse (never
 * longer than `pollMs`, never shorter than `minWaitMs`).
 */
export function nextClaim(view: readonly LeaseView[], pollMs: number, minWaitMs = 10): ClaimStep {
  const free = view.find((v) => v.holder === undefined)
  if (free !== undefined) return { try: free.account }
  const soonest = Math.min(...view.map((v) => v.ttlMs ?? pollMs))
  return { waitMs: Math.max(minWaitMs, Math.min(pollMs, soonest + 1)) }
}

/** Checks the configured list: non-empty, no duplicates, names a lease key can hold. */
export function parseAccountList(raw: string, source = 'FLEET_ACCOUNTS'): string[] {
  const accounts = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
  const problems: string[] = []
  if (accounts.length === 0) problems.push(`${source}: no account named`)
  for (const a of accounts)
    if (!/^[A-Za-z0-9._-]{1,64}$/.test(a))
      problems.push(`${source}: "${a}" is not 1-64 characters of A-Z a-z 0-9 . _ -`)
  if (new Set(accounts).size !== accounts.length) problems.push(`${source}: an account is listed twice`)
  if (problems.length > 0) throw new InputValidationError(`invalid account list\n  ${problems.join('\n  ')}`)
  return accounts
}

const peek = new LuaScript(PEEK_LUA)

/** One round trip: every account's lease holder and remaining TTL. */
export async function peekLeases(
  client: ScriptClient,
  accounts: readonly string[],
  keyPrefix = 'perpbot',
): Promise<LeaseView[]> {
  const r = await peek.run(
    client,
    accounts.map((a) => leaseKeys(keyPrefix, a).lease),
    [],
  )
  if (!Array.isArray(r) || r.length !== accounts.length * 3) throw new TypeError('unexpected peek reply')
  return accounts.map((account, i) => {
    const token: unknown = r[3 * i]
    const ttl = Number(r[3 * i + 1])
    const held = typeof token === 'string' && token !== ''
    return {
      account,
      holder: held ? token : undefined,
      ttlMs: held && ttl >= 0 ? ttl : undefined,
      known: Number(r[3 * i + 2]) === 1,
    }
  })
}

export interface ClaimOptions {
  client: ScriptClient
  accounts: readonly string[]
  lease: (account: string) => AccountLease
  /** Longest standby sleep between looks. */
  pollMs?: number | undefined
  /** Pause after a Redis error. */
  retryMs?: number | undefined
  keyPrefix?: string | undefined
  clock?: Clock | undefined
  signal?: AbortSignal | undefined
  /** Each standby wait (for status and logs). */
  onStandby?: ((view: readonly LeaseView[], waitMs: number) => void) | undefined
  /**
   * An account this standby saw held that is now free *and* without its epoch counter lost it with
   * Redis's data (a restart): its holder re-asserts it at its next renewal, so the standby leaves it
   * alone this long (about two of the holders' renew periods) before trying. 0: no deferral.
   */
  dataLossDeferMs?: number | undefined
}

/**
 * The view a standby acts on: an account it saw held, now free without its counter (Redis lost its
 * data), counts as held until `deferMs` after that was first seen, so its holder can re-assert it.
 * `lostAt` (account → when first seen so) is updated in place.
 */
export function deferDataLoss(
  view: readonly LeaseView[],
  seenHeld: ReadonlySet<string>,
  lostAt: Map<string, number>,
  now: number,
  deferMs: number,
): LeaseView[] {
  return view.map((v) => {
    if (v.holder !== undefined || v.known || !seenHeld.has(v.account) || deferMs <= 0) {
      lostAt.delete(v.account)
      return v
    }
    const since = lostAt.get(v.account) ?? now
    lostAt.set(v.account, since)
    const left = since + deferMs - now
    return left > 0 ? { ...v, holder: '(lost with Redis data)', ttlMs: left } : v
  })
}

/**
 * Loops until one account's lease is held (resolves with it) or `signal` aborts (rejects with its
 * reason). Losing a race for a free account just looks again.
 */
export async function claimFirstFree(o: ClaimOptions): Promise<AccountLease> {
  const lease = await claimLoop(o, false)
  if (lease === undefined) throw new TypeError('claim loop ended without a lease')
  return lease
}

/**
 * One look, no standby: the first free account's lease, or undefined when every account is held
 * (a lost race for a free account looks once more).
 */
export function claimIfFree(
  o: Omit<ClaimOptions, 'onStandby' | 'pollMs'>,
): Promise<AccountLease | undefined> {
  return claimLoop(o, true)
}

async function claimLoop(o: ClaimOptions, once: boolean): Promise<AccountLease | undefined> {
  const clock = o.clock ?? systemClock
  const pollMs = o.pollMs ?? 1_000
  const retryMs = o.retryMs ?? 250
  const leases = new Map<string, AccountLease>()
  const seenHeld = new Set<string>()
  const lostAt = new Map<string, number>()
  const leaseFor = (a: string): AccountLease => {
    let l = leases.get(a)
    if (l === undefined) {
      l = o.lease(a)
      leases.set(a, l)
    }
    return l
  }
  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve, reject) => {
      const onAbort = (): void => {
        clock.clearTimeout(t)
        reject(o.signal?.reason)
      }
      const t: TimerId = clock.setTimeout(() => {
        o.signal?.removeEventListener('abort', onAbort)
        resolve()
      }, ms)
      o.signal?.addEventListener('abort', onAbort, { once: true })
    })
  for (;;) {
    if (o.signal?.aborted) throw o.signal.reason
    let step: ClaimStep
    try {
      const seen = await peekLeases(o.client, o.accounts, o.keyPrefix)
      const view = deferDataLoss(seen, seenHeld, lostAt, clock.now(), o.dataLossDeferMs ?? 0)
      for (const v of seen) if (v.holder !== undefined) seenHeld.add(v.account)
      step = nextClaim(view, pollMs)
      if ('waitMs' in step) {
        if (once) return undefined
        o.onStandby?.(view, step.waitMs)
      }
    } catch (e) {
      if (e instanceof TypeError) throw e
      step = { waitMs: retryMs }
    }
    if ('try' in step) {
      try {
        const r = await leaseFor(step.try).tryAcquire()
        if (r.acquired) return leaseFor(step.try)
      } catch {
        await sleep(retryMs)
      }
      continue
    }
    await sleep(step.waitMs)
  }
}

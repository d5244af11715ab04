/**
 * One writer per account: a Redis lease (SET PX with a fencing epoch, compare-and-set renew and
 * release) plus the holder's own deadline on its monotonic clock. The deadline is what makes the
 * holder stop: `canWrite()` is true only while the lease is held AND the monotonic clock is before
 * `sentAt + ttl - margin`, where `sentAt` is taken just before the last successful acquire or renew
 * was sent. Redis expires the key no earlier than `sentAt + ttl`, so the holder stops writing at
 * least `margin` before any successor can hold the account, without hearing from Redis at all (a
 * partition, a Redis outage, a process paused by SIGSTOP or a long GC: on resuming, the clock has
 * moved on and `canWrite()` is false before anything is sent).
 *
 * Status changes (held, lost: expired / taken / released) go to `onChange` listeners: the bot stops
 * quoting and cancels its orders on `lost`.
 */
import { type Clock, systemClock, type TimerId } from '../clock.ts'
import { InputValidationError } from '../errors.ts'
import { ACQUIRE_LUA, type LeaseKeys, leaseKeys, RELEASE_LUA, RENEW_LUA } from './leaseScripts.ts'
import { intAt, LuaScript, type ScriptClient, stringAt } from './redisScript.ts'

export type LeaseLostReason = 'expired' | 'taken' | 'released'

export type LeaseStatus =
  | { readonly state: 'idle' }
  | { readonly state: 'held'; readonly epoch: number; readonly token: string }
  | { readonly state: 'lost'; readonly epoch: number; readonly reason: LeaseLostReason }

export type AcquireResult =
  | { readonly acquired: true; readonly epoch: number }
  | { readonly acquired: false; readonly holder: string; readonly ttlMs: number }

export interface AccountLeaseOptions {
  client: ScriptClient
  account: string
  /** Who we are (pod name, host:pid); stored in the lease for `status --fleet`. */
  holderId: string
  ttlMs?: number | undefined
  /** Renew period; default a fifth of the TTL, so four renewals can fail before the deadline. */
  renewEveryMs?: number | undefined
  /** How long before Redis's expiry the holder stops writing; default 30 % of the TTL. */
  marginMs?: number | undefined
  keyPrefix?: string | undefined
  /** Timers (renewals, the deadline). */
  clock?: Clock | undefined
  /** A monotonic clock in ms (default `performance.now`): never steps with the wall clock. */
  monotonic?: (() => number) | undefined
}

// Lua's redis.call returns tables for arrays: acquire replies {n, token, ttl}.
const epochOf = (token: string): number => Number.parseInt(token.split(':')[0] ?? '', 10)

export class AccountLease {
  readonly account: string
  readonly holderId: string
  readonly ttlMs: number
  readonly renewEveryMs: number
  readonly marginMs: number
  readonly #client: ScriptClient
  readonly #keys: LeaseKeys
  readonly #clock: Clock
  readonly #monotonic: () => number
  readonly #listeners = new Set<(s: LeaseStatus) => void>()
  #status: LeaseStatus = { state: 'idle' }
  #deadline = Number.NEGATIVE_INFINITY
  #renewTimer: TimerId | undefined
  #deadlineTimer: TimerId | undefined
  renewals = 0
  renewErrors = 0
  static readonly #acquire = new LuaScript(ACQUIRE_LUA)
  static readonly #renew = new LuaScript(RENEW_LUA)
  static readonly #release = new LuaScript(RELEASE_LUA)

  constructor(o: AccountLeaseOptions) {
    this.ttlMs = o.ttlMs ?? 10_000
    this.renewEveryMs = o.renewEveryMs ?? Math.floor(this.ttlMs / 5)
    this.marginMs = o.marginMs ?? Math.floor(this.ttlMs * 0.3)
    if (!(this.ttlMs > 0 && this.renewEveryMs > 0 && this.marginMs >= 0))
      throw new InputValidationError('lease: ttlMs and renewEveryMs must be positive, marginMs non-negative')
    if (this.renewEveryMs + this.marginMs >= this.ttlMs)
      throw new InputValidationError(
        'lease: renewEveryMs + marginMs must be below ttlMs (a renewal must land before the deadline)',
      )
    if (!/^[A-Za-z0-9._-]{1,64}$/.test(o.account))
      throw new InputValidationError('lease: account name must be 1-64 characters of A-Z a-z 0-9 . _ -')
    if (o.holderId.includes(':') || o.holderId.length === 0)
      throw new InputValidationError('lease: holderId must be non-empty and contain no ":"')
    this.account = o.account
    this.holderId = o.holderId
    this.#client = o.client
    this.#keys = leaseKeys(o.keyPrefix ?? 'perpbot', o.account)
    this.#clock = o.clock ?? systemClock
    this.#monotonic = o.monotonic ?? (() => performance.now())
  }

  status(): LeaseStatus {
    return this.#status
  }

  /** The epoch while held (or the last one held), else undefined. */
  get epoch(): number | undefined {
    return this.#status.state === 'idle' ? undefined : this.#status.epoch
  }

  /** Whether this process may write for the account now (check it right before every send). */
  canWrite(): boolean {
    if (this.#status.state !== 'held') return false
    if (this.#monotonic() < this.#deadline) return true
    this.#lose('expired')
    return false
  }

  /** Ms until the holder's own deadline (negative when past; -Infinity when not held). */
  msLeft(): number {
    return this.#status.state === 'held' ? this.#deadline - this.#monotonic() : Number.NEGATIVE_INFINITY
  }

  onChange(fn: (s: LeaseStatus) => void): () => void {
    this.#listeners.add(fn)
    return () => this.#listeners.delete(fn)
  }

  /**
   * One attempt; on success renewals start. `minEpoch`: the highest epoch seen on the account's
   * orders, so the new epoch is above it even if Redis lost its counter.
   * @throws the client's error when Redis cannot be reached (nothing acquired).
   */
  async tryAcquire(minEpoch = 0): Promise<AcquireResult> {
    if (this.#status.state === 'held') throw new InputValidationError('lease: already held')
    const sentAt = this.#monotonic()
    const r = await AccountLease.#acquire.run(
      this.#client,
      [this.#keys.lease, this.#keys.epoch],
      [this.holderId, this.ttlMs, minEpoch],
    )
    const token = stringAt(r, 1)
    if (intAt(r, 0) !== 1) return { acquired: false, holder: token, ttlMs: intAt(r, 2) }
    const epoch = epochOf(token)
    this.#deadline = sentAt + this.ttlMs - this.marginMs
    this.#set({ state: 'held', epoch, token })
    this.#armDeadline()
    this.#scheduleRenew(this.renewEveryMs)
    return { acquired: true, epoch }
  }

  /** Gives the account up (compare-and-delete); writing stops at once. */
  async release(): Promise<boolean> {
    const s = this.#status
    if (s.state !== 'held') return false
    this.#lose('released')
    try {
      return intAt([await AccountLease.#release.run(this.#client, [this.#keys.lease], [s.token])], 0) === 1
    } catch {
      // The key expires by itself within the TTL.
      return false
    }
  }

  /** Stops the timers without releasing (a process exiting hard). */
  stop(): void {
    this.#clearTimers()
  }

  #set(s: LeaseStatus): void {
    this.#status = s
    for (const fn of [...this.#listeners]) {
      try {
        fn(s)
      } catch {
        // A listener's bug must not keep the lease's state machine from moving.
      }
    }
  }

  #lose(reason: LeaseLostReason): void {
    const s = this.#status
    if (s.state !== 'held') return
    this.#clearTimers()
    this.#deadline = Number.NEGATIVE_INFINITY
    this.#set({ state: 'lost', epoch: s.epoch, reason })
  }

  #clearTimers(): void {
    if (this.#renewTimer !== undefined) this.#clock.clearTimeout(this.#renewTimer)
    if (this.#deadlineTimer !== undefined) this.#clock.clearTimeout(this.#deadlineTimer)
    this.#renewTimer = undefined
    this.#deadlineTimer = undefined
  }

  #armDeadline(): void {
    if (this.#deadlineTimer !== undefined) this.#clock.clearTimeout(this.#deadlineTimer)
    this.#deadlineTimer = this.#clock.setTimeout(
      () => {
        this.#deadlineTimer = undefined
        if (!this.canWrite() || this.#status.state !== 'held') return
        this.#armDeadline()
      },
      Math.max(1, Math.ceil(this.#deadline - this.#monotonic())),
    )
  }

  #scheduleRenew(ms: number): void {
    this.#renewTimer = this.#clock.setTimeout(() => {
      this.#renewTimer = undefined
      void this.#renewOnce()
    }, ms)
  }

  async #renewOnce(): Promise<void> {
    const s = this.#status
    // Past the deadline nothing is renewed: a resumed zombie must not re-assert a lapsed lease.
    if (s.state !== 'held' || !this.canWrite()) return
    const sentAt = this.#monotonic()
    let result: number
    try {
      result = intAt(
        [
          await AccountLease.#renew.run(
            this.#client,
            [this.#keys.lease, this.#keys.epoch],
            [s.token, this.ttlMs, s.epoch],
          ),
        ],
        0,
      )
    } catch {
      this.renewErrors += 1
      // Try again sooner; the deadline stops writing if Redis stays away.
      if (this.#status === s) this.#scheduleRenew(Math.max(1, Math.floor(this.renewEveryMs / 2)))
      return
    }
    if (this.#status !== s) return
    if (result === 0) {
      this.#lose('taken')
      return
    }
    this.renewals += 1
    this.#deadline = Math.max(this.#deadline, sentAt + this.ttlMs - this.marginMs)
    this.#armDeadline()
    this.#scheduleRenew(this.renewEveryMs)
  }
}

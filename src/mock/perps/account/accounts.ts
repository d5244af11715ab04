/**
 * Accounts and proxies: creating accounts (seeded by the scenario), registering proxies, resolving
 * header credentials, leverage settings and referrals.
 */
import { InputValidationError } from '../../../errors.ts'
import type { Credentials } from '../../../perps/schemas/account.ts'
import { TokenBucket } from '../../tokenBucket.ts'
import { badRequest, unauthorized, unprocessable } from '../errors.ts'
import { seedAccount } from '../market/scenarioControls.ts'
import { parseUsd, usd } from '../money.ts'
import type { AccountSeed } from '../options.ts'
import {
  type Account,
  ADDRESS_RE,
  type ExchangeState,
  nowOf,
  type ProxyRecord,
  randomString,
} from '../state.ts'

/** `GET /v1/account/referral` (OpenAPI B shape). */
export interface AccountReferral {
  code: string
  parent?: string | undefined
  children_count: number
  referrals_left: number
  fee_share_rate: string
  active_children_count: number
  children_volume: string
  children_fees: string
}

/**
 * Bounds on what a caller can make the mock store (decisions; the venue publishes none): a proxy
 * label's length, live proxies per account (accounts in all: the `maxAccounts` option). Referral
 * codes are bounded by their pattern (1–64 characters); history lists by the exchange options.
 */
export const MAX_LABEL_LENGTH = 64
export const MAX_PROXIES_PER_ACCOUNT = 20

const REFERRAL_RE = /^[A-Za-z0-9_-]{1,64}$/
const SECRET_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
const REFERRAL_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'
const MAX_REFERRALS = 10

/** The owner's account, created (and seeded by the scenario) when new. */
export function ensureAccount(s: ExchangeState, owner: string, collateral: bigint | undefined): Account {
  const key = owner.toLowerCase()
  const existing = s.accounts.get(key)
  if (existing !== undefined) return existing
  const account: Account = {
    owner,
    key,
    collateral: collateral ?? s.o.startingCollateral,
    positions: new Map(),
    leverage: new Map(),
    cross: new Map(),
    isolatedMargin: new Map(),
    orders: new Map(),
    open: new Map(),
    funding: [],
    fills: [],
    withdrawals: [],
    deposits: [],
    referralCode: randomString(s, REFERRAL_ALPHABET, 8),
    referredBy: undefined,
    proxies: [],
    bucket: new TokenBucket(s.clock, s.o.actionBudget, 60_000),
    inLiquidation: false,
    nextLiquidationAt: 0,
    volumeMicros: 0n,
    feesMicros: 0n,
    autoCancel: { deadline: 0, day: 0, triggered: 0 },
  }
  s.accounts.set(key, account)
  seedAccount(s, account)
  return account
}

/** Registers a proxy on the account, moving it off any account that held it before. */
export function addProxy(
  s: ExchangeState,
  account: Account,
  proxy: string,
  secret: string,
  expiry: number,
  label: string | undefined,
): void {
  const key = proxy.toLowerCase()
  const previous = s.proxies.get(key)
  if (previous !== undefined)
    previous.account.proxies = previous.account.proxies.filter((p) => p !== previous)
  const record: ProxyRecord = { proxy, secret, expiry, label, account }
  s.proxies.set(key, record)
  account.proxies.push(record)
}

/** Creates an account (and its proxies) unless it exists. */
export function registerAccount(s: ExchangeState, seed: AccountSeed): void {
  if (!ADDRESS_RE.test(seed.owner)) throw new InputValidationError('account owner must be a 0x address')
  const account = ensureAccount(
    s,
    seed.owner,
    seed.collateral === undefined ? undefined : parseUsd(seed.collateral),
  )
  for (const p of seed.proxies ?? []) {
    if (!ADDRESS_RE.test(p.proxy)) throw new InputValidationError('proxy must be a 0x address')
    if (p.label !== undefined && p.label.length > MAX_LABEL_LENGTH)
      throw new InputValidationError(`proxy label must be at most ${MAX_LABEL_LENGTH} characters`)
    if (p.secret.length === 0) throw new InputValidationError('proxy secret must not be empty')
    addProxy(s, account, p.proxy, p.secret, p.expiry, p.label)
  }
}

/**
 * The synchronous half of createProxy, after the gate verified the owner's signature: the proxy
 * joins the owner's account with a fresh secret. `commit` consumes the salt once the request is
 * accepted. Decision: an unexpired registration blocks re-registration; an expired one is replaced.
 * @throws {@link MockRejection} 422 `proxy already exists`, `proxy_limit_reached` (the account
 * holds `MAX_PROXIES_PER_ACCOUNT` unexpired proxies), `account_limit_reached` (`maxAccounts`).
 */
export function registerProxy(
  s: ExchangeState,
  args: { owner: string; proxy: string; expiry: number; label: string | undefined; code: string | undefined },
  commit: () => void,
): string {
  const now = nowOf(s)
  const existing = s.proxies.get(args.proxy.toLowerCase())
  if (existing !== undefined && existing.expiry > now) throw unprocessable('proxy already exists')
  const holder = s.accounts.get(args.owner.toLowerCase())
  if (holder === undefined && s.accounts.size >= s.o.maxAccounts) throw unprocessable('account_limit_reached')
  if (holder !== undefined && holder.proxies.length >= MAX_PROXIES_PER_ACCOUNT) {
    dropExpiredProxies(s, holder, now)
    if (holder.proxies.length >= MAX_PROXIES_PER_ACCOUNT) throw unprocessable('proxy_limit_reached')
  }
  commit()
  const account = ensureAccount(s, args.owner, undefined)
  const secret = randomString(s, SECRET_ALPHABET, 40)
  addProxy(s, account, args.proxy, secret, args.expiry, args.label)
  // Decision: a well-formed `code` applies as a referral when the account has none; otherwise ignored.
  const code = args.code
  if (
    code !== undefined &&
    REFERRAL_RE.test(code) &&
    account.referredBy === undefined &&
    code !== account.referralCode
  )
    account.referredBy = code
  return secret
}

/** Forgets the account's expired proxies (they only make room for new ones at the cap). */
function dropExpiredProxies(s: ExchangeState, account: Account, now: number): void {
  for (const p of account.proxies) {
    const key = p.proxy.toLowerCase()
    if (p.expiry <= now && s.proxies.get(key) === p) s.proxies.delete(key)
  }
  account.proxies = account.proxies.filter((p) => p.expiry > now)
}

/** An account by owner or proxy address. */
export function findAccount(s: ExchangeState, address: string): Account | undefined {
  const key = address.toLowerCase()
  return s.accounts.get(key) ?? s.proxies.get(key)?.account
}

/**
 * Resolves a proxy/secret header pair to the owner address.
 * @throws {@link MockRejection} 401 `unauthorized` when missing, wrong or the proxy is expired.
 */
export function authenticate(
  s: ExchangeState,
  proxy: string | undefined,
  secret: string | undefined,
): string {
  if (proxy === undefined || secret === undefined) throw unauthorized()
  const record = s.proxies.get(proxy.toLowerCase())
  if (record === undefined || record.secret !== secret || record.expiry <= nowOf(s)) throw unauthorized()
  return record.account.owner
}

/** The account of an authenticated owner. @throws {@link MockRejection} 401 when unknown. */
export function authedAccount(s: ExchangeState, owner: string): Account {
  const account = s.accounts.get(owner.toLowerCase())
  if (account === undefined) throw unauthorized()
  return account
}

/** Sets an account's leverage on an instrument (1..max_leverage). */
export function setLeverage(s: ExchangeState, owner: string, instrumentId: number, leverage: number): void {
  const account = s.accounts.get(owner.toLowerCase())
  const m = s.byId.get(instrumentId)
  if (account === undefined || m === undefined)
    throw new InputValidationError('unknown account or instrument')
  if (!Number.isInteger(leverage) || leverage < 1 || leverage > m.spec.maxLeverage)
    throw new InputValidationError(`leverage must be an integer in 1..${m.spec.maxLeverage}`)
  account.leverage.set(instrumentId, leverage)
}

export function credentialsOf(account: Account): Credentials {
  return {
    address: account.owner,
    keys: account.proxies.map((p) =>
      p.label === undefined
        ? { proxy: p.proxy, expiry: p.expiry }
        : { proxy: p.proxy, expiry: p.expiry, label: p.label },
    ),
  }
}

export function referralOf(s: ExchangeState, account: Account): AccountReferral {
  const children = [...s.accounts.values()].filter((a) => a.referredBy === account.referralCode)
  const out: AccountReferral = {
    code: account.referralCode,
    children_count: children.length,
    referrals_left: Math.max(0, MAX_REFERRALS - children.length),
    fee_share_rate: '0.2',
    active_children_count: children.filter((c) => c.volumeMicros > 0n).length,
    children_volume: usd(children.reduce((sum, c) => sum + c.volumeMicros, 0n)),
    children_fees: usd(children.reduce((sum, c) => sum + c.feesMicros, 0n)),
  }
  if (account.referredBy !== undefined) out.parent = account.referredBy
  return out
}

/**
 * `POST /v1/account/referral {code}`: once per account.
 * @throws {@link MockRejection} 400 malformed code; 422 `referral_already_applied` / `self_referral`.
 */
export function applyReferral(account: Account, body: unknown): { status: 'ok' } {
  const code = isRecord(body) ? body.code : undefined
  if (typeof code !== 'string') throw badRequest('invalid request body: missing field `code`')
  if (!REFERRAL_RE.test(code)) throw badRequest('invalid referral code')
  if (account.referredBy !== undefined) throw unprocessable('referral_already_applied')
  if (code === account.referralCode) throw unprocessable('self_referral')
  account.referredBy = code
  return { status: 'ok' }
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

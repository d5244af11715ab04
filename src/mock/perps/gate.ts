/**
 * The command gate: everything a signed command must pass before it touches the book. Shape, ts
 * freshness, `exp`, signature recovery (signerRecovery.ts; no effect on state), then the signer's
 * proxy and the (signer, salt) replay check. Decision on check order: body shape, `no orders
 * provided`, ts, exp, signature, then account and salt.
 */
import { type Hex, hashTypedData } from 'viem'
import { z } from 'zod'
import { InputValidationError } from '../../errors.ts'
import type { PerpsOp } from '../../perps/signing/ops.ts'
import { MAX_EXP_AHEAD_MS } from '../../perps/signing/timing.ts'
import { createProxyTypedData, opDigest, type SignedOp, type Stamp } from '../../perps/signing/typedData.ts'
import {
  type ParsedCreateProxy,
  type ParsedSignedCommand,
  parseCreateProxyBody,
  parseSignedCommand,
} from '../../perps/signing/verify.ts'
import type { VouchedCommand } from '../mockHttp.ts'
import { isRecord, MAX_LABEL_LENGTH } from './account/accounts.ts'
import { badRequest, MockRejection, TEXT } from './errors.ts'
import { syncState } from './market/stepping.ts'
import { SIGNATURE_WINDOW_MS } from './options.ts'
import { type Account, type ExchangeState, nowOf } from './state.ts'

const SIG_RE = /^0x[0-9a-fA-F]{128}(1b|1c|1B|1C)$/
const UInt = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER)

/**
 * `autoCancel` is not in the shared verifier (the official client does not sign it): the mock reads
 * it itself. Signed layout inferred as `["autoCancel", [time]]` (protocol-notes a.2); body
 * `{op:{type:"autoCancel", args:{time}}, sig, salt, ts}`.
 */
const AutoCancelBody = z.looseObject({
  op: z.object({ type: z.literal('autoCancel'), args: z.object({ time: UInt }) }),
  sig: z
    .string()
    .regex(SIG_RE)
    .transform((x): Hex => `0x${x.slice(2)}`),
  salt: UInt,
  ts: UInt,
  exp: UInt.optional(),
})

export interface VerifiedAutoCancel {
  time: number
  stamp: Stamp
  signer: string
}

export interface VerifiedCommand {
  op: PerpsOp
  stamp: Stamp
  signer: string
}

/** A command admitted for processing; `commit` consumes its salt (call it once it is accepted). */
export interface AdmittedCommand<T extends PerpsOp['type']> {
  account: Account
  op: Extract<PerpsOp, { type: T }>
  commit: () => void
}

/**
 * First half of the gate of the proxy-signed ops, with no effect on state: shape, freshness, exp,
 * signature recovery.
 * @throws {@link MockRejection} 400 with the venue's text.
 */
export async function verifyCommand(
  s: ExchangeState,
  body: unknown,
  type: PerpsOp['type'],
): Promise<VerifiedCommand> {
  const received = nowOf(s)
  rejectMalformedSig(body)
  let parsed: ParsedSignedCommand
  try {
    parsed = parseSignedCommand(body)
  } catch (e) {
    throw badRequest(bodyError(e))
  }
  const op = parsed.built.op
  if (op.type !== type) throw badRequest(`invalid request body: op.type must be ${type}`)
  if (Array.isArray(op.args) && op.args.length === 0) throw badRequest(TEXT.noOrders)
  checkFreshness(parsed.stamp.ts, parsed.exp, received, s.o.transitAllowanceMs)
  const signer = recoverOpSigner(s, signedOpOf(s, parsed), parsed.stamp, parsed.sig)
  if (typeof body === 'object' && body !== null) s.commandSigners.set(body, signer)
  return { op, stamp: parsed.stamp, signer }
}

/**
 * The gate of a typed command from an in-process venue (perps/typedCommands.ts), up to where a signed
 * one has its signer: the link vouches for `signer`, so there is no body to parse and no signature to
 * recover; the op type, an empty batch and ts/exp freshness are checked as for a signed body. The
 * salt is the signer's own and passes the same replay check in `admitCommand`.
 * @throws {@link MockRejection} 400 with the venue's text.
 */
export function vouchedCommand(
  s: ExchangeState,
  command: VouchedCommand,
  type: PerpsOp['type'],
): VerifiedCommand {
  const { op, salt, ts, exp } = command.stamped
  if (op.type !== type) throw badRequest(`invalid request body: op.type must be ${type}`)
  if (Array.isArray(op.args) && op.args.length === 0) throw badRequest(TEXT.noOrders)
  checkFreshness(ts, exp, nowOf(s), s.o.transitAllowanceMs)
  s.commandSigners.set(command.stamped, command.signer)
  return { op, stamp: { salt, ts }, signer: command.signer }
}

/**
 * The gate of `PATCH /v1/trade/auto-cancel` up to signature recovery (no effect on state).
 * @throws {@link MockRejection} 400 with the venue's text.
 */
export async function verifyAutoCancel(s: ExchangeState, body: unknown): Promise<VerifiedAutoCancel> {
  const received = nowOf(s)
  rejectMalformedSig(body)
  const parsed = AutoCancelBody.safeParse(body)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw badRequest(
      `invalid request body: ${issue === undefined ? 'malformed' : `${issue.path.join('.') || '(root)'}: ${issue.message}`}`,
    )
  }
  const { op, sig, salt, ts, exp } = parsed.data
  checkFreshness(ts, exp, received, s.o.transitAllowanceMs)
  const stamp = { salt, ts }
  const signer = recoverOpSigner(s, ['autoCancel', [op.args.time]], stamp, sig)
  if (typeof body === 'object' && body !== null) s.commandSigners.set(body, signer)
  return { time: op.args.time, stamp, signer }
}

/** A signed body's gate (`verifyCommand`), or a typed command's when the request is `vouched`. */
export function verifyAny(
  s: ExchangeState,
  body: unknown,
  type: PerpsOp['type'],
  vouched: VouchedCommand | undefined,
): Promise<VerifiedCommand> | VerifiedCommand {
  return vouched === undefined ? verifyCommand(s, body, type) : vouchedCommand(s, vouched, type)
}

/** The dead-man switch as a typed command (see `vouchedCommand`). @throws {@link MockRejection} 400. */
export function vouchedAutoCancel(s: ExchangeState, command: VouchedCommand): VerifiedAutoCancel {
  const { op, salt, ts, exp } = command.stamped
  if (op.type !== 'autoCancel') throw badRequest('invalid request body: op.type must be autoCancel')
  checkFreshness(ts, exp, nowOf(s), s.o.transitAllowanceMs)
  s.commandSigners.set(command.stamped, command.signer)
  return { time: op.args.time, stamp: { salt, ts }, signer: command.signer }
}

/**
 * The synchronous half for any proxy-signed command: the signer's proxy → account, and the salt.
 * @throws {@link MockRejection} 400 `account not found for proxy` / `invalid signature` (replay); 429.
 */
export function admitSigner(
  s: ExchangeState,
  signer: string,
  stamp: Stamp,
): { account: Account; commit: () => void } {
  syncState(s)
  const now = nowOf(s)
  const proxy = s.proxies.get(signer.toLowerCase())
  if (proxy === undefined || proxy.expiry <= now) throw badRequest(TEXT.accountNotFound)
  if (s.replay.seen(signer, stamp.salt, now)) throw badRequest(TEXT.invalidSignature)
  checkSaltRoom(s, signer, now)
  return { account: proxy.account, commit: () => s.replay.record(signer, stamp.salt, stamp.ts, now) }
}

/**
 * The positional op the mock hashes. Decision: the `oid-qty-p` layout (an option) stands in for a
 * venue that signs modifyOrders differently from us; every other op uses the shared builders.
 */
function signedOpOf(s: ExchangeState, parsed: ParsedSignedCommand): SignedOp {
  const op = parsed.built.op
  if (op.type === 'modifyOrders' && s.modifyOrdersLayout === 'oid-qty-p')
    return ['modifyOrders', op.args.map((m) => [m.oid, m.qty, m.p])]
  return parsed.built.signedOp
}

function recoverOpSigner(s: ExchangeState, signedOp: SignedOp, stamp: Stamp, sig: Hex): string {
  const digest = opDigest(s.o.domain, signedOp, stamp)
  const signer = recover(() => s.signers.signer(digest, sig, soleLiveProxy(s)))
  if (signer === undefined) throw badRequest(TEXT.invalidSignature)
  return signer
}

/** The one live proxy of the whole venue, if there is exactly one: the likely signer of a command. */
function soleLiveProxy(s: ExchangeState): string | undefined {
  if (s.proxies.size !== 1) return undefined
  for (const p of s.proxies.values()) return p.expiry > nowOf(s) ? p.proxy : undefined
  return undefined
}

/**
 * ts inside the signature window; `exp`, when given, in the future (less the transit allowance of an
 * accelerated clock, options.ts) and at most 5 s ahead.
 */
function checkFreshness(ts: number, exp: number | undefined, received: number, transitMs: number): void {
  checkTimestamp(ts, received)
  if (exp !== undefined) {
    if (exp <= received - transitMs) throw badRequest(TEXT.commandExpired)
    if (exp > received + MAX_EXP_AHEAD_MS) throw badRequest(TEXT.expiryTooFar)
  }
}

/**
 * Second half, synchronous: proxy → account and the replay check. Callers run it right after the
 * `await` of `verifyCommand` and do all their work in the same synchronous block, so concurrent
 * copies of one signed body cannot both pass the replay check.
 * @throws {@link MockRejection} 400 `account not found for proxy` / `invalid signature` (replay).
 */
export function admitCommand<T extends PerpsOp['type']>(
  s: ExchangeState,
  v: VerifiedCommand,
  type: T,
): AdmittedCommand<T> {
  const { account, commit } = admitSigner(s, v.signer, v.stamp)
  const op = v.op
  if (!isOp(op, type)) throw badRequest(`invalid request body: op.type must be ${type}`)
  return { account, op, commit }
}

/**
 * The owner-signed createProxy: shape, ts, expiry in the future, signature by `args.owner`.
 * @throws {@link MockRejection} 400.
 */
export async function verifyCreateProxy(s: ExchangeState, body: unknown): Promise<ParsedCreateProxy> {
  const received = nowOf(s)
  rejectMalformedSig(body)
  let parsed: ParsedCreateProxy
  try {
    parsed = parseCreateProxyBody(body)
  } catch (e) {
    throw badRequest(bodyError(e))
  }
  if (parsed.label !== undefined && parsed.label.length > MAX_LABEL_LENGTH)
    throw badRequest(`invalid request body: label must be at most ${MAX_LABEL_LENGTH} characters`)
  checkTimestamp(parsed.ts, received)
  const { owner, proxy, expiry } = parsed.op.args
  if (expiry <= received) throw badRequest('proxy expiry must be in the future')
  const signer = recover(() =>
    s.signers.signer(
      hashTypedData(
        createProxyTypedData(s.o.domain, { proxy, expiry }, { salt: parsed.salt, ts: parsed.ts }),
      ),
      parsed.sig,
      owner,
    ),
  )
  if (signer === undefined || signer.toLowerCase() !== owner.toLowerCase())
    throw badRequest(TEXT.invalidSignature)
  return parsed
}

/**
 * The replay check of an owner-signed command (after `syncState`); returns the salt's commit.
 * @throws {@link MockRejection} 400 `invalid signature` for a reused salt.
 */
export function admitSalt(s: ExchangeState, signer: string, salt: number, ts: number): () => void {
  syncState(s)
  const now = nowOf(s)
  if (s.replay.seen(signer, salt, now)) throw badRequest(TEXT.invalidSignature)
  checkSaltRoom(s, signer, now)
  return () => s.replay.record(signer, salt, ts, now)
}

/**
 * Decision: a signer holding the maximum of live salts (replay.ts) is rate limited like an
 * exhausted action bucket, so salt memory stays bounded even with the request limiter off.
 */
function checkSaltRoom(s: ExchangeState, signer: string, now: number): void {
  const waitMs = s.replay.fullForMs(signer, now)
  if (waitMs > 0) throw new MockRejection(429, 'action_rate_limited', Math.ceil(waitMs / 1000))
}

/**
 * The venue's per-signer rate-limit headers for the answer to a signed command `body` (undefined when
 * off or the body's signer is unknown): the signer's action bucket, `Remaining` its whole tokens left,
 * `Reset` the Unix second it is full again, `Tier` the mock's one tier.
 */
export function signerRateLimitHeaders(s: ExchangeState, body: unknown): Record<string, string> | undefined {
  if (!s.signerRateLimitHeaders || typeof body !== 'object' || body === null) return undefined
  const signer = s.commandSigners.get(body)
  const account = signer === undefined ? undefined : s.proxies.get(signer.toLowerCase())?.account
  if (account === undefined) return undefined
  const b = account.bucket
  const left = b.available
  const fullAt = nowOf(s) + ((b.capacity - left) * b.windowMs) / b.capacity
  return {
    'poly-ratelimit-remaining': String(Math.floor(left)),
    'poly-ratelimit-reset': String(Math.ceil(fullAt / 1000)),
    'poly-ratelimit-tier': 'standard',
  }
}

/** Takes `weight` action tokens. @throws {@link MockRejection} 429 `action_rate_limited` with Retry-After. */
export function takeActionWeight(account: Account, weight: number): void {
  if (weight <= 0) return
  const r = account.bucket.take(weight)
  if (!r.ok) throw new MockRejection(429, 'action_rate_limited', r.retryAfterSeconds)
}

function isOp<T extends PerpsOp['type']>(op: PerpsOp, type: T): op is Extract<PerpsOp, { type: T }> {
  return op.type === type
}

/** A present but malformed `sig` is a signature problem, not a body problem. */
function rejectMalformedSig(body: unknown): void {
  if (isRecord(body) && typeof body.sig === 'string' && !SIG_RE.test(body.sig))
    throw badRequest(TEXT.invalidSignature)
}

/** ts older than the window is `signature expired`; further ahead than it is `invalid signature`. */
function checkTimestamp(ts: number, now: number): void {
  if (ts < now - SIGNATURE_WINDOW_MS) throw badRequest(TEXT.signatureExpired)
  if (ts > now + SIGNATURE_WINDOW_MS) throw badRequest(TEXT.invalidSignature)
}

function bodyError(e: unknown): string {
  if (e instanceof InputValidationError) {
    const detail = e.details[0]
    return `invalid request body: ${detail ?? e.shortMessage}`
  }
  throw e
}

/** Hashing throws on a message the typed data cannot encode: that is no signer either. */
function recover(run: () => string | undefined): string | undefined {
  try {
    return run()
  } catch {
    return undefined
  }
}

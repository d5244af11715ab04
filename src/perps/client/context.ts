/**
 * The perps client context: everything an endpoint function needs (transport, clock, jitter, auth
 * headers, signers, the request gate below it), built once from `PerpsClientConfig`. Endpoint functions take it as
 * their first argument (viem/hyperliquid style); `createPerpsClient` only binds it.
 */

import { inspect } from 'node:util'
import { type Clock, systemClock } from '../../clock.ts'
import { ConfigError } from '../../errors.ts'
import { READ_RETRY, type RetryPolicy } from '../../http/callJson.ts'
import type { RateLimitObservation } from '../../http/rateLimitHeaders.ts'
import { createHttpTransport, type HttpTransport, type HttpTransportOptions } from '../../http/transport.ts'
import { type Random, systemRandom } from '../../random.ts'
import type { CommandSigner, ProxyCommandSigner } from '../signing/commandSigner.ts'
import type { RequestGate } from '../throttle/requestGate.ts'
import {
  createWeightLimiter,
  type LimiterView,
  type WeightLimiterOptions,
} from '../throttle/weightLimiter.ts'
import type { PerpsEndpoint } from '../weights.ts'
import { RotatingProxyKey } from './rotatingKey.ts'

/** The venue's header names (protocol-notes b); the spec's `SERVICE-PROXY`/`SERVICE-SECRET` work by config. */
export const DEFAULT_AUTH_HEADER_NAMES: Readonly<AuthHeaderNames> = Object.freeze({
  proxy: 'POLYMARKET-PROXY',
  secret: 'POLYMARKET-SECRET',
})

export interface AuthHeaderNames {
  proxy: string
  secret: string
}

export type { Admission, GatedRequest, RequestGate, RequestPriority } from '../throttle/requestGate.ts'

/**
 * What the client saw that its caller may act on, without changing any call's outcome: the venue's own
 * rate-limit count (to correct the limiter's window) and the rows of a list it could not read.
 */
export interface PerpsResponseObserver {
  /** `Poly-RateLimit-*` headers of an answer (success or error), when present. */
  rateLimit?(endpoint: PerpsEndpoint, observation: RateLimitObservation): void
  /** Rows a read dropped because a value could not be read (one `[index.field]: reason` line each). */
  droppedItems?(endpoint: PerpsEndpoint, lines: readonly string[]): void
}

/** A proxy signer for `/v1/trade/*` ops (satisfied by `CommandSigner`; commandSigner.ts). */
export type PerpsCommandSigner = ProxyCommandSigner
/** The owner (EOA) signer for createProxy (satisfied by `CommandSigner`). */
export type PerpsOwnerSigner = Pick<CommandSigner, 'address' | 'signCreateProxy'>

/** Longest API secret accepted: far above any real one, low enough that a pasted file is refused. */
export const MAX_API_SECRET_LENGTH = 1_024

/**
 * Why an API secret cannot be sent in a header (a phrase without the secret), or undefined if it can.
 * Visible ASCII only (0x21-0x7E): a header value with other characters is refused by the HTTP client
 * or re-encoded differently by peers, and spaces would be trimmed.
 */
export function apiSecretProblem(secret: unknown): string | undefined {
  if (typeof secret !== 'string' || secret.length === 0) return 'must be non-empty'
  if (secret.length > MAX_API_SECRET_LENGTH) return `longer than ${MAX_API_SECRET_LENGTH} characters`
  if (!/^[\x21-\x7e]+$/.test(secret))
    return 'must be visible ASCII only (no spaces, control or non-ASCII characters)'
  return undefined
}

/**
 * The proxy address and API secret for header-authenticated reads. The secret is held in a private
 * field: `JSON.stringify`, `String()` and `util.inspect` show only the proxy address.
 */
export class ProxyCredentials {
  readonly proxy: string
  readonly #secret: string

  /**
   * @throws {@link ConfigError} for a malformed proxy or a secret that cannot travel in a header (the
   * message omits the secret).
   */
  constructor(proxy: string, secret: string) {
    const issues: string[] = []
    if (typeof proxy !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(proxy))
      issues.push('credentials.proxy: expected a 0x-prefixed 20-byte hex address')
    const secretProblem = apiSecretProblem(secret)
    if (secretProblem !== undefined) issues.push(`credentials.secret: ${secretProblem}`)
    if (issues.length > 0) throw new ConfigError('invalid perps credentials', issues)
    this.proxy = proxy
    this.#secret = secret
  }

  /** The API secret. Read it only to put it in a header or a secret store; never log it. */
  get secret(): string {
    return this.#secret
  }

  toJSON(): { proxy: string; secret: '[redacted]' } {
    return { proxy: this.proxy, secret: '[redacted]' }
  }

  toString(): string {
    return `ProxyCredentials(${this.proxy})`
  }

  [inspect.custom](): string {
    return `ProxyCredentials { proxy: '${this.proxy}', secret: [redacted] }`
  }
}

export interface PerpsClientConfig {
  /** Venue origin plus optional base path (the real venue or the mock). Ignored when `transport` is given. */
  baseUrl?: string | undefined
  /** A ready transport (shared, not closed by the client). */
  transport?: HttpTransport | undefined
  /** Options for the transport the client creates from `baseUrl` (timeouts; tests pass a `dispatcher`). */
  http?: Omit<HttpTransportOptions, 'baseUrl'> | undefined
  /** Drives retry backoff and the exp pre-check; give it the same venue-corrected clock as the signer. */
  clock?: Clock | undefined
  /** Retry jitter. */
  random?: Random | undefined
  /** For `/v1/account/*` reads and applyReferral. */
  credentials?: ProxyCredentials | RotatingProxyKey | { proxy: string; secret: string } | undefined
  /** Header names; defaults to POLYMARKET-PROXY / POLYMARKET-SECRET. */
  authHeaderNames?: Partial<AuthHeaderNames> | undefined
  /** Proxy signer for createOrders / modifyOrders / cancelOrders / cancelAll. */
  signer?: PerpsCommandSigner | undefined
  /** Owner signer for createProxy (can also be passed per call). */
  ownerSigner?: PerpsOwnerSigner | undefined
  /** Retry policy of reads (commands never retry). Default: callJson's READ_RETRY. */
  readRetry?: RetryPolicy | undefined
  /** Default relative `exp` for trade commands (ms, clamped to 5000 by the signer); none when unset. */
  defaultExpAfterMs?: number | undefined
  /**
   * Admits every request before it is signed and sent (the weight limiter, perps/throttle/, built from
   * plain settings; a fleet's wraps it); none = sent at once.
   */
  gate?: RequestGate | undefined
  /**
   * A throttle of the client's own, from plain values (budgets, headroom, reserve, breaker): the
   * client builds the weight limiter on its clock, admits every request through it and stops it at
   * `close`. Exclusive with `gate` (a throttle shared by a process's clients).
   */
  throttle?: Omit<WeightLimiterOptions, 'clock'> | undefined
  /** Hears rate-limit headers and dropped rows. */
  observer?: PerpsResponseObserver | undefined
}

export interface PerpsClientContext {
  readonly transport: HttpTransport
  readonly clock: Clock
  /** Uniform in [0, 1), for backoff jitter. */
  readonly random: () => number
  /** A fixed key's pair, or a `RotatingProxyKey` (read per request). */
  readonly credentials?: ProxyCredentials | RotatingProxyKey | undefined
  readonly authHeaderNames: Readonly<AuthHeaderNames>
  readonly signer?: PerpsCommandSigner | undefined
  readonly ownerSigner?: PerpsOwnerSigner | undefined
  readonly readRetry: RetryPolicy
  readonly defaultExpAfterMs?: number | undefined
  readonly gate?: RequestGate | undefined
  /** The throttle built from `throttle` (the client's own, read-only here; stopped at close). */
  readonly ownThrottle?: (LimiterView & { stop(): Promise<void> }) | undefined
  readonly observer?: PerpsResponseObserver | undefined
}

/** RFC 9110 token characters: what a header name may contain. */
const HEADER_NAME_RE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

/**
 * Builds a context from configuration. Creates a transport from `baseUrl` unless one is given.
 * @throws {@link ConfigError} listing every invalid setting (never echoing the secret).
 */
export function createPerpsContext(config: PerpsClientConfig): PerpsClientContext {
  const issues: string[] = []
  const names: AuthHeaderNames = {
    proxy: config.authHeaderNames?.proxy ?? DEFAULT_AUTH_HEADER_NAMES.proxy,
    secret: config.authHeaderNames?.secret ?? DEFAULT_AUTH_HEADER_NAMES.secret,
  }
  for (const key of ['proxy', 'secret'] as const) {
    if (!HEADER_NAME_RE.test(names[key])) issues.push(`authHeaderNames.${key}: not a valid HTTP header name`)
  }
  if (names.proxy.toLowerCase() === names.secret.toLowerCase())
    issues.push('authHeaderNames: proxy and secret headers must differ')
  if (config.gate !== undefined && config.throttle !== undefined)
    issues.push('throttle: give either a gate or the values of a throttle of its own, not both')
  if (config.transport === undefined && config.baseUrl === undefined)
    issues.push('baseUrl: required when no transport is given')
  if (
    config.defaultExpAfterMs !== undefined &&
    !(Number.isFinite(config.defaultExpAfterMs) && config.defaultExpAfterMs > 0)
  )
    issues.push('defaultExpAfterMs: must be a positive number of ms')
  let credentials: ProxyCredentials | RotatingProxyKey | undefined
  if (config.credentials !== undefined) {
    try {
      credentials =
        config.credentials instanceof ProxyCredentials || config.credentials instanceof RotatingProxyKey
          ? config.credentials
          : new ProxyCredentials(config.credentials.proxy, config.credentials.secret)
    } catch (e) {
      if (e instanceof ConfigError) issues.push(...e.issues)
      else throw e
    }
  }
  if (issues.length > 0) throw new ConfigError('invalid perps client configuration', issues)

  let transport = config.transport
  if (transport === undefined) {
    try {
      transport = createHttpTransport({ ...config.http, baseUrl: config.baseUrl as string })
    } catch (e) {
      throw new ConfigError('invalid perps client configuration', ['baseUrl: not a valid URL'], { cause: e })
    }
  }
  const random = config.random ?? systemRandom
  const clock = config.clock ?? systemClock
  const own = config.throttle === undefined ? undefined : createWeightLimiter({ ...config.throttle, clock })
  return {
    transport,
    clock,
    random: () => random.next(),
    credentials,
    authHeaderNames: Object.freeze(names),
    signer: config.signer,
    ownerSigner: config.ownerSigner,
    readRetry: config.readRetry ?? READ_RETRY,
    defaultExpAfterMs: config.defaultExpAfterMs,
    gate: config.gate ?? own,
    ownThrottle: own,
    observer: config.observer,
  }
}

/**
 * Fault injection for the mock, by configuration: per-route rates of 500s, 503s, 429 bursts, added
 * latency, timeouts (a held response), malformed JSON, and a server clock offset. Every roll comes
 * from an injected seeded `Random`, drawn synchronously when the request arrives, so one seed and one
 * request sequence always give the same faults.
 *
 * Delays (latency, timeout holds) run on the injected `clock`, which the server sets to wall time: network
 * latency does not speed up with an accelerated exchange clock, and a response never waits for a
 * stepped clock to be advanced (no deadlocked tests). Tests inject a stepped clock to control them.
 */
import { z } from 'zod'
import type { Clock, TimerId } from '../clock.ts'
import { InputValidationError } from '../errors.ts'
import { entriesOf } from '../guards.ts'
import { formatZodIssues } from '../http/callJson.ts'
import { endpointFor } from '../perps/weights.ts'
import type { Random } from '../random.ts'
import type { MockHandler, MockRequest, MockResponse } from './mockHttp.ts'
import { catalogueError, isCatalogueRoute, perpsError } from './requestLimiter.ts'
import { StreamFaultSchema } from './stream/streamFaults.ts'

// ---------------------------------------------------------------------------------------------------
// Configuration
// ---------------------------------------------------------------------------------------------------

const probability = z.number().min(0).max(1)
/** Bounds on a fault config (it is stored): rules, route names and strings (decision). */
export const MAX_FAULT_RULES = 64
const name = z.string().max(200)

/** Which requests a rule applies to; every given field must match. An empty match is every request. */
export const FaultMatchSchema = z.strictObject({
  /** Route name(s): a perps endpoint of `PERPS_WEIGHTS` (e.g. `modifyOrders`) or a catalogue route. */
  endpoint: z.union([name, z.array(name).max(MAX_FAULT_RULES)]).optional(),
  method: name.optional(),
  /** Path glob; `*` matches any characters, including `/` (e.g. `/v1/account/*`). */
  path: name.optional(),
  api: z.enum(['perps', 'catalogue']).optional(),
  /** `read` = GET, `write` = anything else. */
  kind: z.enum(['read', 'write']).optional(),
})

export const FaultRuleSchema = z.strictObject({
  match: FaultMatchSchema.optional(),
  /** Probability of a 500 (`internal_error`); the handler is not called. */
  error500: probability.optional(),
  /** Probability of a 503; the handler is not called. */
  error503: probability.optional(),
  /** Probability that a request starts a burst of `length` consecutive 429s on this rule's routes. */
  rateLimitBurst: z
    .strictObject({
      probability,
      length: z.number().int().min(1).max(10_000),
      /** `Retry-After` seconds. Default 1. */
      retryAfterSeconds: z.number().int().min(0).max(3_600).optional(),
    })
    .optional(),
  /** Added latency: `fixedMs` plus a uniform draw in [0, `jitterMs`]. */
  latency: z
    .strictObject({
      fixedMs: z.number().min(0).max(60_000).optional(),
      jitterMs: z.number().min(0).max(60_000).optional(),
    })
    .optional(),
  /**
   * Probability that the response is held for `holdMs` after arrival (longer than the client's
   * timeout, so it gives up). The handler still runs: a command's outcome is then unknown to the client.
   */
  timeout: z.strictObject({ probability, holdMs: z.number().min(1).max(300_000) }).optional(),
  /** Probability that the handler's answer is sent truncated (invalid JSON), status unchanged. */
  malformedJson: probability.optional(),
})

export const FaultConfigSchema = z.strictObject({
  rules: z.array(FaultRuleSchema).max(MAX_FAULT_RULES),
  /** The server's clock is this many ms ahead of the client's (negative: behind). */
  clockOffsetMs: z.number().int().min(-86_400_000).max(86_400_000).optional(),
  /** Faults of the WebSocket at `/v1/ws` (stream/streamFaults.ts). */
  stream: StreamFaultSchema.optional(),
})

export type FaultMatch = z.infer<typeof FaultMatchSchema>
export type FaultRule = z.infer<typeof FaultRuleSchema>
export type FaultConfig = z.infer<typeof FaultConfigSchema>

export type FaultPresetName = 'none' | 'flaky' | 'slow' | 'skewed'

/** Named presets. The bot must survive `flaky`: it is what the `flaky` scenario turns on. */
export const FAULT_PRESETS: Readonly<Record<FaultPresetName, FaultConfig>> = {
  none: { rules: [] },
  flaky: {
    rules: [
      {
        error500: 0.05,
        error503: 0.02,
        rateLimitBurst: { probability: 0.01, length: 3, retryAfterSeconds: 1 },
        latency: { fixedMs: 0, jitterMs: 50 },
      },
      // Reads only: a timed-out or garbled command is an unknown outcome the bot must reconcile,
      // which the 500s already exercise; reads are where retries must cope with these.
      { match: { kind: 'read' }, timeout: { probability: 0.01, holdMs: 15_000 }, malformedJson: 0.01 },
    ],
  },
  slow: { rules: [{ latency: { fixedMs: 200, jitterMs: 300 } }] },
  skewed: { rules: [], clockOffsetMs: 30_000 },
}

export const FAULT_PRESET_NAMES = entriesOf(FAULT_PRESETS).map(([name]) => name)

export function isFaultPresetName(name: string): name is FaultPresetName {
  return Object.hasOwn(FAULT_PRESETS, name)
}

/**
 * Resolves a preset name or validates a config object (e.g. a `POST /__mock/faults` body).
 * @throws {@link InputValidationError} for an unknown preset or an invalid config.
 */
export function resolveFaultConfig(input: unknown): FaultConfig {
  if (typeof input === 'string') {
    if (!isFaultPresetName(input))
      throw new InputValidationError(
        `unknown fault preset '${input}' (known: ${FAULT_PRESET_NAMES.join(', ')})`,
      )
    return structuredClone(FAULT_PRESETS[input])
  }
  const parsed = FaultConfigSchema.safeParse(input)
  if (!parsed.success) {
    const issues = formatZodIssues(parsed.error)
    throw new InputValidationError(`invalid fault config: ${issues[0] ?? 'invalid'}`, {
      details: issues.slice(1),
    })
  }
  return parsed.data
}

// ---------------------------------------------------------------------------------------------------
// Matching
// ---------------------------------------------------------------------------------------------------

/** The route's name: a perps endpoint of the weight table, a catalogue operation, or undefined. */
export function routeNameFor(method: string, path: string): string | undefined {
  const perps = endpointFor(method, path)
  if (perps !== undefined) return perps
  if (method !== 'GET' || !isCatalogueRoute(path)) return undefined
  if (path === '/events/keyset') return 'listEventsKeyset'
  if (/^\/events\/slug\/[^/]+$/.test(path)) return 'getEventBySlug'
  if (/^\/events\/[^/]+\/tags$/.test(path)) return 'getEventTags'
  return undefined
}

function globToRegExp(glob: string): RegExp {
  const escaped = glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')
  return new RegExp(`^${escaped}$`)
}

/** True when `req` matches every field of `match`. */
export function matchesRule(
  match: FaultMatch | undefined,
  req: Pick<MockRequest, 'method' | 'path'>,
): boolean {
  if (match === undefined) return true
  const method = req.method.toUpperCase()
  if (match.method !== undefined && match.method.toUpperCase() !== method) return false
  if (match.kind !== undefined && (match.kind === 'read') !== (method === 'GET')) return false
  if (match.api !== undefined) {
    const api = isCatalogueRoute(req.path) ? 'catalogue' : req.path.startsWith('/v1/') ? 'perps' : undefined
    if (api !== match.api) return false
  }
  if (match.path !== undefined && !globToRegExp(match.path).test(req.path)) return false
  if (match.endpoint !== undefined) {
    const names = typeof match.endpoint === 'string' ? [match.endpoint] : match.endpoint
    const name = routeNameFor(method, req.path)
    if (name === undefined || !names.includes(name)) return false
  }
  return true
}

// ---------------------------------------------------------------------------------------------------
// Injection
// ---------------------------------------------------------------------------------------------------

export type FaultKind = 'error500' | 'error503' | 'rateLimited' | 'timeout' | 'malformedJson' | 'delayed'

/** Header on every response a fault touched, naming the fault (for logs and tests). */
export const FAULT_HEADER = 'x-mock-fault'

export interface FaultDeps {
  /** Runs latency and timeout holds (the server passes wall time, not the exchange's clock). */
  clock: Clock
  random: Random
}

export interface FaultInjector {
  readonly config: FaultConfig
  /** Replaces the config; burst state restarts. Held responses keep their schedule. */
  setConfig(config: FaultConfig): void
  wrap(handler: MockHandler): MockHandler
  /** Responses currently delayed or held. */
  readonly pending: number
  /** How many times each fault was injected since creation. */
  readonly counts: Readonly<Record<FaultKind, number>>
  /** Sends every delayed or held response now (server shutdown: no timers left behind). */
  releaseAll(): void
}

interface Decision {
  delayMs: number
  fault: MockResponse | undefined
  holdMs: number
  malformed: boolean
}

/** Creates a fault injector; `wrap` it around a handler. */
export function createFaultInjector(config: FaultConfig, deps: FaultDeps): FaultInjector {
  let current = config
  // Remaining 429s of the burst each rule started, by rule index.
  let bursts = new Map<number, number>()
  const pending = new Map<TimerId, () => void>()
  const counts: Record<FaultKind, number> = {
    error500: 0,
    error503: 0,
    rateLimited: 0,
    timeout: 0,
    malformedJson: 0,
    delayed: 0,
  }
  const { random, clock: delayClock } = deps

  const roll = (p: number | undefined): boolean => p !== undefined && p > 0 && random.next() < p

  const decide = (req: MockRequest): Decision => {
    const d: Decision = { delayMs: 0, fault: undefined, holdMs: 0, malformed: false }
    const catalogue = isCatalogueRoute(req.path)
    const fail = (status: number, kind: FaultKind, headers: Record<string, string> = {}): MockResponse => {
      counts[kind]++
      const h = { ...headers, [FAULT_HEADER]: kind }
      if (catalogue) {
        if (status === 500) return catalogueError(500, 'internal error', 'injected fault: internal error', h)
        if (status === 503)
          return catalogueError(503, 'service unavailable', 'injected fault: service unavailable', h)
        return catalogueError(429, 'rate limited', 'too many requests', h)
      }
      const code =
        status === 500 ? 'internal_error' : status === 503 ? 'service_unavailable' : 'ip_rate_limited'
      return perpsError(req, status, code, h)
    }
    current.rules.forEach((rule, index) => {
      if (!matchesRule(rule.match, req)) return
      // Draw every roll of a matching rule, whatever the outcome, so later requests see the same
      // random stream whichever fault fired first.
      const latency = rule.latency
      if (latency !== undefined) {
        const jitter = latency.jitterMs ?? 0
        d.delayMs += (latency.fixedMs ?? 0) + (jitter > 0 ? random.next() * jitter : 0)
      }
      const r500 = roll(rule.error500)
      const r503 = roll(rule.error503)
      const burst = rule.rateLimitBurst
      const rBurst = roll(burst?.probability)
      const rTimeout = roll(rule.timeout?.probability)
      const rMalformed = roll(rule.malformedJson)
      if (d.fault !== undefined || d.holdMs > 0) return
      const left = bursts.get(index) ?? 0
      const retryAfter = { 'retry-after': String(burst?.retryAfterSeconds ?? 1) }
      if (burst !== undefined && left > 0) {
        bursts.set(index, left - 1)
        d.fault = fail(429, 'rateLimited', retryAfter)
      } else if (rTimeout && rule.timeout !== undefined) {
        d.holdMs = rule.timeout.holdMs
      } else if (r503) {
        d.fault = fail(503, 'error503')
      } else if (r500) {
        d.fault = fail(500, 'error500')
      } else if (rBurst && burst !== undefined) {
        bursts.set(index, burst.length - 1)
        d.fault = fail(429, 'rateLimited', retryAfter)
      } else if (rMalformed) {
        d.malformed = true
      }
    })
    d.delayMs = Math.round(d.delayMs)
    return d
  }

  /** Resolves after `ms` on the delay clock, or at `releaseAll`. Set synchronously. */
  const wait = (ms: number): Promise<void> =>
    new Promise<void>((resolve) => {
      const id = delayClock.setTimeout(() => {
        pending.delete(id)
        resolve()
      }, ms)
      pending.set(id, resolve)
    })

  return {
    get config() {
      return current
    },
    setConfig(config) {
      current = config
      bursts = new Map()
    },
    get pending() {
      return pending.size
    },
    counts,
    releaseAll() {
      for (const [id, resolve] of pending) {
        delayClock.clearTimeout(id)
        resolve()
      }
      pending.clear()
    },
    wrap(handler) {
      return (req) => {
        const d = decide(req)
        const totalDelay = d.holdMs > 0 ? Math.max(d.holdMs, d.delayMs) : d.delayMs
        if (d.fault === undefined && totalDelay === 0 && !d.malformed) return handler(req)
        const delayed = totalDelay > 0 ? wait(totalDelay) : undefined
        if (d.holdMs > 0) counts.timeout++
        else if (d.fault === undefined && totalDelay > 0) counts.delayed++
        return (async (): Promise<MockResponse> => {
          let res: MockResponse
          if (d.fault !== undefined) res = d.fault
          else {
            // The handler runs now, even when the answer is held: the work is done, the reply is late.
            const [answer] = await Promise.all([handler(req), delayed])
            res = d.malformed ? truncate(answer, counts) : answer
            if (d.holdMs > 0) res = { ...res, headers: { ...res.headers, [FAULT_HEADER]: 'timeout' } }
          }
          if (delayed !== undefined) await delayed
          return res
        })()
      }
    },
  }
}

/** Middleware form: `handler` behind the faults of `config` (a preset name or a config object). */
export function withFaults(
  handler: MockHandler,
  config: FaultConfig | FaultPresetName,
  deps: FaultDeps,
): MockHandler {
  return createFaultInjector(resolveFaultConfig(config), deps).wrap(handler)
}

function truncate(res: MockResponse, counts: Record<FaultKind, number>): MockResponse {
  counts.malformedJson++
  const text = res.raw ?? JSON.stringify(res.body ?? {})
  // Half of a JSON object or array is never valid JSON; '{' covers empty bodies.
  const raw = text.length >= 2 ? text.slice(0, Math.floor(text.length / 2)) : '{'
  return { status: res.status, headers: { ...res.headers, [FAULT_HEADER]: 'malformedJson' }, raw }
}

/**
 * The configuration schema: `config/default.json` merged with an overlay (`config/dry-run.json`,
 * `config/live.json` or `--config FILE`) and the environment. Secrets come only from the environment
 * and live in `Secrets`, never in the file-backed `Settings`.
 */

import { z } from 'zod'
import { JournalSettings } from '../journal/settings.ts'
import { FAULT_PRESET_NAMES } from '../mock/faults.ts'
import { SCENARIO_NAMES } from '../mock/perps/market/scenarios.ts'
import { MIN_OPS_TOKEN_LENGTH } from '../ops/opsAuth.ts'
import { apiSecretProblem } from '../perps/client/context.ts'
import { DEFAULT_ORDER_TAG_NAME } from '../perps/orderTag.ts'
import { privateKeyProblem } from '../perps/signing/privateKey.ts'
import { DEFAULT_ACCOUNT_OPEN_ORDER_CAP } from '../perps/weights.ts'
import { DEFAULT_HEAP_GROWTH_PERCENT } from './heapDefault.ts'
import {
  POLLING_FLOOR_MS,
  VENUE_ACTION_BUDGET_PER_MINUTE,
  VENUE_REQUEST_BUDGET_PER_MINUTE,
  VENUE_STREAM_CONNECTIONS,
  VENUE_STREAM_MESSAGES_PER_MINUTE,
  VENUE_STREAM_SUBSCRIPTIONS_PER_CONNECTION,
} from './limits.ts'
import { ProtectionSettings } from './protectionSettings.ts'
import { TELEGRAM_TOKEN_PATTERN, TelegramSettings } from './telegramSettings.ts'

const Ms = z.number().int().nonnegative()
const Ratio = z.number().min(0)
const HttpUrl = z
  .string()
  .url()
  .refine((u) => /^https?:\/\//.test(u), { message: 'must be an http(s) URL' })

export const InstrumentSettings = z.strictObject({
  /** Venue symbol, e.g. "BTC-USDC"; resolved to an instrument id at startup. */
  symbol: z.string().min(1),
  enabled: z.boolean().default(true),
  strategy: z.string().min(1),
  /** Validated against the strategy's own schema once strategies are loaded. */
  params: z.record(z.string(), z.unknown()).default({}),
  /** Leverage the account should have on this instrument, set at start (`updateLeverage`). Absent: left as it is. */
  leverage: z.number().int().positive().max(1_000).optional(),
  /** Margin mode set at start with the leverage. Absent: left as it is. */
  marginMode: z.enum(['cross', 'isolated']).optional(),
})
export type InstrumentSettings = z.infer<typeof InstrumentSettings>

export const RiskSettings = z.strictObject({
  /** Margin ratio = total maintenance margin / total account value (0 safe, ≥ 1 liquidation). */
  widenAtMarginRatio: Ratio.default(0.5),
  reduceOnlyAtMarginRatio: Ratio.default(0.7),
  haltAtMarginRatio: Ratio.default(0.9),
  /** Distance from mark (index) to the liquidation price, as a fraction of the price. */
  widenAtLiquidationDistance: Ratio.default(0.15),
  reduceOnlyAtLiquidationDistance: Ratio.default(0.08),
  /** A mode is left only once the driver is this far back inside the threshold (ratio units). */
  hysteresis: Ratio.default(0.05),
  /** Minimum time in a risk mode before stepping down. */
  minModeDwellMs: Ms.default(10_000),
  /** Largest believed index move since the last accepted one (fraction; 0 = off); larger needs 3 updates in a row. */
  maxIndexJump: Ratio.default(0.1),
  /** Bad observations in a row (strategy errors, plans with out-of-bounds quotes, dropped index updates) that degrade an instrument. */
  degradeAfter: z.number().int().positive().default(3),
})

export const QuotingSettings = z.strictObject({
  priceToleranceTicks: z.number().int().nonnegative().default(1),
  priceToleranceBps: z.number().nonnegative().default(2),
  maxOrderAgeMs: Ms.default(120_000),
  /** Inputs older than this make the actor halt quoting. */
  staleIndexMs: Ms.default(15_000),
  staleStatisticsMs: Ms.default(180_000),
  staleMarginMs: Ms.default(30_000),
  /** Lower bound between two repricing decisions of one instrument. */
  minRepriceIntervalMs: Ms.default(250),
  /** 1-minute klines kept per instrument (the newest); strategies see at most this many. */
  klinesKept: z.number().int().min(0).max(1440).default(120),
  /**
   * Open orders the account may rest (the venue's 1,000 on the default tier; raise it for a higher
   * tier). When the ladders want more, each instrument's is trimmed to a fair share (orderSlots.ts).
   */
  accountOpenOrderCap: z.number().int().positive().default(DEFAULT_ACCOUNT_OPEN_ORDER_CAP),
})

/** Floors: `limits.ts` (an eighth of the venue's request budget per poller at most). */
const PollMs = (key: keyof typeof POLLING_FLOOR_MS, dflt: number) =>
  Ms.min(POLLING_FLOOR_MS[key], {
    error: `must be at least ${POLLING_FLOOR_MS[key]} ms: faster polling starves the other reads`,
  }).default(dflt)

export const PollingSettings = z.strictObject({
  /** Index and mark of every instrument: one tickers read (weight 2). */
  indexMs: PollMs('indexMs', 2_000),
  /** Statistics (24 h of 1-minute klines): the klines change once a minute, as the venue pushes them. */
  statisticsMs: PollMs('statisticsMs', 60_000),
  portfolioMs: PollMs('portfolioMs', 3_000),
  openOrdersMs: PollMs('openOrdersMs', 30_000),
  withdrawalsMs: PollMs('withdrawalsMs', 30_000),
  fundingMs: PollMs('fundingMs', 60_000),
  /** Deposits (weight 10): slow, as withdrawals; each new deposit and change of status is journaled. */
  depositsMs: PollMs('depositsMs', 120_000),
  /** Fills (weight 10): every fill is logged with side, price, size, fee and maker/taker. */
  fillsMs: PollMs('fillsMs', 15_000),
  credentialsMs: PollMs('credentialsMs', 300_000),
  timeSyncMs: PollMs('timeSyncMs', 60_000),
})

/**
 * The venue's WebSocket as the bot's inputs (index, mark, statistics, portfolio, orders, fills,
 * withdrawals); each input's REST poller stands down while its stream is healthy and resumes when it
 * is down or silent past its bound. Address: env PERPS_WS_URL (a dry run uses the embedded mock's).
 */
export const StreamSettings = z.strictObject({
  enabled: z.boolean().default(true),
  /** Tickers and portfolio (pushed every second or so) silent this long: their pollers resume. */
  silenceMs: Ms.min(1_000).max(60_000).default(5_000),
  /** Statistics are pushed about once a minute. */
  statisticsSilenceMs: Ms.min(60_000).max(600_000).default(150_000),
  /** Sockets at most, private one included (venue: 50 per IP). */
  maxConnections: z.number().int().min(2).max(VENUE_STREAM_CONNECTIONS).default(4),
  /** Venue: 100 per connection. */
  maxSubscriptionsPerConnection: z
    .number()
    .int()
    .positive()
    .max(VENUE_STREAM_SUBSCRIPTIONS_PER_CONNECTION)
    .default(VENUE_STREAM_SUBSCRIPTIONS_PER_CONNECTION),
  /** Frames sent per minute by every socket together (venue: 1,000 per IP). */
  maxMessagesPerMinute: z.number().int().min(10).max(VENUE_STREAM_MESSAGES_PER_MINUTE).default(500),
  /**
   * Subscribe `bbo::{iid}` so strategies see the best bid and offer (stream only: no REST read has
   * it). Instruments beyond the public sockets' room for subscriptions go without.
   */
  bbo: z.boolean().default(true),
})

export const LimiterSettings = z.strictObject({
  requestBudgetPerMinute: z
    .number()
    .int()
    .positive()
    .max(VENUE_REQUEST_BUDGET_PER_MINUTE, {
      error: `must be at most ${VENUE_REQUEST_BUDGET_PER_MINUTE}, the venue's request limit per minute`,
    })
    .default(VENUE_REQUEST_BUDGET_PER_MINUTE),
  actionBudgetPerMinute: z
    .number()
    .int()
    .positive()
    .max(VENUE_ACTION_BUDGET_PER_MINUTE, {
      error: `must be at most ${VENUE_ACTION_BUDGET_PER_MINUTE}, the venue's action limit per minute`,
    })
    .default(VENUE_ACTION_BUDGET_PER_MINUTE),
  /** Fraction of each budget the bot allows itself. */
  headroom: z.number().gt(0).max(1).default(0.9),
  /** Fraction of the usable budget reserved for risk-reducing work. */
  riskReserve: z.number().min(0).lt(1).default(0.15),
  breakerThreshold: z.number().int().positive().default(3),
  breakerWindowMs: Ms.default(60_000),
  breakerCooldownMs: Ms.default(30_000),
  /** A venue `Retry-After` is honoured up to this long (it may say days); longer pauses are clamped. */
  maxRetryAfterMs: z.number().int().positive().max(2_147_483_647).default(60_000),
  /** A 429 pause at least this long raises an alert. */
  longPauseAlertMs: Ms.default(10_000),
})

export const BatcherSettings = z.strictObject({
  /**
   * Extra time quote commands wait to be batched. 0 (default) flushes at the end of the current tick:
   * everything one input fans out to is still one batch, and no timer sits on the quote path.
   */
  windowMs: Ms.default(0),
  /**
   * How long a plan that only refreshes aged orders may wait to share a batch with other
   * instruments' refreshes (an urgent command flushes it sooner): without it, every instrument's
   * refresh is its own request, and 1,000 instruments' refreshes take the whole request budget.
   */
  lazyWindowMs: Ms.default(1_000),
  maxBatchSize: z.number().int().min(1).max(199).default(99),
})

export const MonitorSettings = z.strictObject({
  marginWarningRatio: Ratio.default(0.5),
  marginCriticalRatio: Ratio.default(0.8),
  marginHysteresis: Ratio.default(0.05),
  withdrawalPendingWarnMs: Ms.default(3_600_000),
  proxyExpiryLeadMs: Ms.default(86_400_000),
  clockSkewWarnMs: Ms.default(2_000),
  rateLimitWarnCount: z.number().int().positive().default(3),
  rateLimitWindowMs: Ms.default(300_000),
})

/** Our orders and the others on the account (see src/perps/orderTag.ts). */
export const OrdersSettings = z.strictObject({
  /**
   * The name our client order ids are tagged with (its keccak's first 4 bytes): orders without the
   * tag are not ours. Two bots sharing an account need different names; keep it across restarts.
   */
  tag: z.string().min(1).max(64).default(DEFAULT_ORDER_TAG_NAME),
  /**
   * Open orders the bot did not place: `leave` (default) never reprices or cancels them (halts and
   * the exit policy cancel ours by id while they rest); `adopt` manages them as its own; `cancel`
   * cancels them by id as soon as a read or a push shows them (and says so).
   */
  foreign: z.enum(['leave', 'adopt', 'cancel']).default('leave'),
})

export const WebhookSettings = z.strictObject({
  /**
   * A dry run posts to ALERT_WEBHOOK_URL only when true, and then every message says REHEARSAL in its
   * title and `mode: "dry-run"` in its payload: a rehearsed liquidation must not page anyone.
   */
  inDryRun: z.boolean().default(false),
  format: z.enum(['generic', 'slack', 'discord', 'telegram']).default('generic'),
  /** Telegram needs a chat id in the payload. */
  telegramChatId: z.string().optional(),
  minSeverity: z.enum(['info', 'warning', 'critical']).default('warning'),
  maxPerMinute: z.number().int().positive().default(20),
  retries: z.number().int().min(0).max(10).default(3),
  timeoutMs: Ms.default(5_000),
})

export const OpsSettings = z.strictObject({
  /**
   * Health/metrics server; loopback by default in every mode. Any other address (the container's
   * 0.0.0.0) needs env PERPBOT_OPS_TOKEN, required on every endpoint but /livez.
   */
  host: z.string().min(1).default('127.0.0.1'),
  port: z.number().int().min(0).max(65535).default(9464),
  /**
   * Host names the ops server answers besides loopback names and IP literals (a DNS name it is
   * reached by, e.g. a Service's); any other `Host` gets 421 (DNS rebinding, issue 34).
   */
  hostNames: z
    .array(
      z.string().regex(/^[A-Za-z0-9.-]{1,253}$/, { error: 'a DNS name (letters, digits, dots, dashes)' }),
    )
    .max(32)
    .default([]),
  exitPolicy: z.enum(['cancel-all', 'leave-orders']).default('cancel-all'),
  shutdownTimeoutMs: Ms.max(10_000).default(8_000),
  /** Stop by the exit policy when a process that started the bot exits (`npx perpbot run` after SIGTERM to npm). */
  exitWhenOrphaned: z.boolean().default(true),
  /** Refuse the control commands (pause, resume, cancel-all, flatten, reload, stop) and hide them on the dashboard. */
  readOnly: z.boolean().default(false),
  /** Where the bot keeps its small restart journal (salts window, alert episodes). */
  stateDir: z.string().default('.perpbot-state'),
  /**
   * How far the heap may grow past the live data before a full collection, percent (`perpbot run`
   * sets V8's `--heap-growing-percent`; see src/cli/heapPolicy.ts). Lower: less rss, more collections.
   * 0 = V8's own policy.
   */
  heapGrowthPercent: z.number().int().min(0).max(400).default(DEFAULT_HEAP_GROWTH_PERCENT),
  /**
   * The venue's dead-man switch (`PATCH /v1/trade/auto-cancel`): kept armed `deadlineMs` ahead,
   * refreshed every `refreshMs`, cleared on a clean stop; if the process dies the venue cancels
   * every open order at the deadline.
   */
  deadManSwitch: z
    .strictObject({
      enabled: z.boolean().default(true),
      /**
       * How far ahead the deadline is set (the venue needs at least 5 s): 15 s, so a dead bot's orders
       * rest at most 15 s (issue 23).
       */
      deadlineMs: Ms.min(10_000).max(3_600_000).default(15_000),
      /** How often it is pushed forward: at most a third of the deadline, so two refreshes can fail. */
      refreshMs: Ms.min(1_000).default(5_000),
    })
    .refine((d) => d.refreshMs * 3 <= d.deadlineMs, {
      message: 'refreshMs must be at most a third of deadlineMs (two refreshes may fail before it fires)',
    })
    .prefault({}),
  /** `/livez` bounds (see src/ops/watchdog.ts). */
  watchdog: z
    .strictObject({
      /** Event-loop delay (wall time) past which /livez fails: signed commands expire in 4 s. */
      eventLoopStallMs: Ms.min(100).default(4_000),
      /** A registered loop fails /livez when silent for its interval plus this (bot clock). */
      loopGraceMs: Ms.min(1_000).default(120_000),
    })
    .prefault({}),
})

export const MockSettings = z.strictObject({
  seed: z.number().int().default(1),
  scenario: z
    .enum(SCENARIO_NAMES, { error: `unknown scenario (known: ${SCENARIO_NAMES.join(', ')})` })
    .default('calm'),
  clock: z.enum(['real', 'accelerated']).default('real'),
  speed: z.number().positive().default(1),
  faults: z
    .enum(FAULT_PRESET_NAMES, { error: `unknown fault preset (known: ${FAULT_PRESET_NAMES.join(', ')})` })
    .default('none'),
  startingCollateral: z.string().default('100000'),
})

export const Settings = z.strictObject({
  /** `paper`: `run --paper` (the local paper book on the live market's public feed; set by the CLI). */
  mode: z.enum(['dry-run', 'live', 'paper']).default('dry-run'),
  perps: z
    .strictObject({
      url: HttpUrl.optional(),
      proxyHeader: z.string().min(1).default('POLYMARKET-PROXY'),
      secretHeader: z.string().min(1).default('POLYMARKET-SECRET'),
      connectTimeoutMs: Ms.default(5_000),
      /** Overall limit per request, headers and whole body (also each idle limit). */
      requestTimeoutMs: Ms.min(100).default(10_000),
      /** Largest response body read from the venue; the read stops past it. */
      maxResponseBytes: z.number().int().min(65_536).max(268_435_456).default(8_388_608),
      /** Largest venue-clock offset accepted; beyond it nothing is signed (the venue's 5-min window). */
      maxClockSkewMs: Ms.min(1_000).max(3_600_000).default(300_000),
      /** Fallback EIP-712 domain when /v1/info/exchange cannot be read. */
      chainId: z.number().int().positive().default(137),
      commandExpiryMs: Ms.max(5_000).default(4_000),
    })
    .prefault({}),
  catalogue: z
    .strictObject({
      url: HttpUrl.optional(),
      /** A 500-event page with nested markets is several MB; the read stops past this. */
      maxResponseBytes: z.number().int().min(65_536).max(268_435_456).default(33_554_432),
    })
    .prefault({}),
  instruments: z.array(InstrumentSettings).min(1, 'configure at least one instrument'),
  /**
   * A folder of drop-in strategy modules (relative to the working directory), read beside the shipped
   * ones. Absent: the shipped ones only, so `npx perpbot run` works from any directory.
   */
  strategiesDir: z.string().min(1).optional(),
  /**
   * How long one strategy module may take to import before the start is refused (wall ms): a
   * top-level await that never settles must not hang the start. Raise it for a slow disk.
   */
  strategyImportTimeoutMs: z.number().int().min(100).max(600_000).default(10_000),
  quoting: QuotingSettings.prefault({}),
  risk: RiskSettings.prefault({}),
  polling: PollingSettings.prefault({}),
  streams: StreamSettings.prefault({}),
  limiter: LimiterSettings.prefault({}),
  batcher: BatcherSettings.prefault({}),
  monitor: MonitorSettings.prefault({}),
  orders: OrdersSettings.prefault({}),
  /** Loss limits, cooldown and notional caps (src/settings/protectionSettings.ts). */
  protections: ProtectionSettings.prefault({}),
  /** The phone: commands and notifications over Telegram (src/settings/telegramSettings.ts). */
  telegram: TelegramSettings.prefault({}),
  alerts: z.strictObject({ webhook: WebhookSettings.prefault({}) }).prefault({}),
  ops: OpsSettings.prefault({}),
  /** The journal (src/journal): write-behind queue and retention. */
  journal: JournalSettings.prefault({}),
  mock: MockSettings.prefault({}),
  logging: z
    .strictObject({
      level: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
      pretty: z.enum(['auto', 'always', 'never']).default('auto'),
    })
    .prefault({}),
})
export type Settings = z.infer<typeof Settings>

/** Why a value from the environment is not a private key: one sentence that never echoes it. */
export function privateKeyEnvProblem(v: string): string | undefined {
  const t = v.trim()
  if (/^(0x)?[0-9a-fA-F]{40}$/.test(t))
    return 'this is an address (40 hex digits), not a private key: set the key itself, 0x and 64 hex digits'
  if (!/^0x/.test(t)) return 'must be a private key written 0x and 64 hex digits (the 0x is missing)'
  const problem = privateKeyProblem(t)
  if (problem === undefined) return undefined
  if (/^0x[0-9a-fA-F]*$/.test(t) && t.length !== 66)
    return `must be a private key written 0x and 64 hex digits (this one has ${t.length - 2})`
  return `must be a private key written 0x and 64 hex digits: ${problem}`
}

/** A key from the environment: 0x + 64 hex digits inside the secp256k1 range; messages never echo it. */
const PrivateKeyEnv = z.string().superRefine((v, ctx) => {
  const problem = privateKeyEnvProblem(v)
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem })
})

/** Secrets and endpoint overrides read from the environment only. */
export const Secrets = z.object({
  PERPS_URL: HttpUrl.optional(),
  /** The venue's WebSocket (another host than PERPS_URL), e.g. wss://ws.perpetuals.polymarket.com/v1/ws. */
  PERPS_WS_URL: z
    .string()
    .url()
    .refine((u) => /^wss?:\/\//.test(u), { message: 'must be a ws(s) URL' })
    .optional(),
  CATALOGUE_URL: HttpUrl.optional(),
  PERPS_PROXY_PRIVATE_KEY: PrivateKeyEnv.optional(),
  PERPS_PROXY_SECRET: z
    .string()
    .superRefine((v, ctx) => {
      const problem = apiSecretProblem(v)
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem })
    })
    .optional(),
  PERPS_OWNER_PRIVATE_KEY: PrivateKeyEnv.optional(),
  ALERT_WEBHOOK_URL: HttpUrl.optional(),
  /** Bearer token for the ops server; required when `ops.host` is not loopback. */
  PERPBOT_OPS_TOKEN: z
    .string()
    .min(MIN_OPS_TOKEN_LENGTH, { error: `must be at least ${MIN_OPS_TOKEN_LENGTH} characters` })
    .regex(/^[\x21-\x7e]+$/, { error: 'must be printable ASCII without spaces (it goes in a header)' })
    .optional(),
  /** The Telegram bot's token (from @BotFather); enables the phone (`telegram` settings). */
  TELEGRAM_BOT_TOKEN: z
    .string()
    .regex(TELEGRAM_TOKEN_PATTERN, {
      error: 'must be a Bot API token as @BotFather gives it (digits:letters)',
    })
    .optional(),
  /** The live journal's PostgreSQL (postgres://user:password@host/db); may hold a password. */
  DATABASE_URL: z.string().optional(),
})
export type Secrets = z.infer<typeof Secrets>

/** Names of every secret, for redaction. */
export const SECRET_ENV_NAMES = [
  'PERPS_PROXY_PRIVATE_KEY',
  'PERPS_PROXY_SECRET',
  'PERPS_OWNER_PRIVATE_KEY',
  'ALERT_WEBHOOK_URL',
  'PERPBOT_OPS_TOKEN',
  'DATABASE_URL',
  'TELEGRAM_BOT_TOKEN',
] as const

/**
 * Every environment variable whose value (or, for a URL, its password and tokens) the one scrubber
 * must know (issue 34): the secrets above and those read outside the settings (the fleet's Redis).
 * A new secret: add its name here (or call `SecretBag.register(value)` where it is read).
 */
export const SCRUBBED_ENV_NAMES: readonly string[] = [...SECRET_ENV_NAMES, 'FLEET_REDIS_URL']

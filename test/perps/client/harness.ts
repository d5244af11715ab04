/**
 * Test harness for the perps client: an undici MockAgent with net connect disabled (any request
 * without a queued reply fails), a recorder of the exact requests sent, a virtual clock, and
 * CommandSigners over the public Hardhat/Anvil dev keys (protocol-notes a.4; never fund them).
 */
import { MockAgent } from 'undici'
import type { Clock, TimerId } from '../../../src/clock.ts'
import { RateLimitError } from '../../../src/errors.ts'
import { NO_RETRY } from '../../../src/http/callJson.ts'
import type { PerpsClientConfig } from '../../../src/perps/client/context.ts'
import { createPerpsClient, type PerpsClient } from '../../../src/perps/client/createPerpsClient.ts'
import { CommandSigner } from '../../../src/perps/signing/commandSigner.ts'
import type { PerpsEndpoint } from '../../../src/perps/weights.ts'
import type { Random } from '../../../src/random.ts'

export const ORIGIN = 'http://perps.test'
export const T0 = 1_767_000_000_000

export const OWNER_PK = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
export const OWNER_ADDRESS = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
export const PROXY_PK = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'
export const PROXY_ADDRESS = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
export const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'

/** Virtual time: timers fire on the next macrotask and advance `now` by their delay. */
export class FakeClock implements Clock {
  t: number
  readonly delays: number[] = []
  constructor(t = T0) {
    this.t = t
  }
  now(): number {
    return this.t
  }
  setTimeout(fn: () => void, ms: number): TimerId {
    this.delays.push(ms)
    return setImmediate(() => {
      this.t += ms
      fn()
    })
  }
  clearTimeout(id: TimerId): void {
    clearImmediate(id as NodeJS.Immediate)
  }
}

/** A Random whose integer draws are fixed (salts become predictable, so signatures match vectors). */
export function fixedRandom(salt: number): Random {
  return { next: () => 0.5, int: () => salt, normal: () => 0, pick: <T>(xs: readonly T[]) => xs[0] as T }
}

export interface RecordedRequest {
  method: string
  /** Path including the raw query string. */
  path: string
  /** Lower-cased names. */
  headers: Record<string, string>
  body: string | undefined
  json: unknown
}

export interface Reply {
  status?: number | undefined
  /** JSON-serialized unless `raw` is given. */
  body?: unknown
  raw?: string | undefined
  headers?: Record<string, string> | undefined
}

export interface Harness {
  client: PerpsClient
  agent: MockAgent
  clock: FakeClock
  requests: RecordedRequest[]
  charges: Charge[]
  rateLimited: RateLimited[]
  /** Queues one reply; the next request (whatever it is) consumes it and is recorded. */
  reply(reply: Reply): void
  /** Queues one reply computed from the recorded request. */
  respond(fn: (req: RecordedRequest) => Reply): void
  /** Queues one transport-level failure. */
  fail(error: Error): void
  /** The single recorded request (fails if there were none or several). */
  only(): RecordedRequest
  close(): Promise<void>
}

/** What the recording gate saw of each request it let through. */
export interface Charge {
  endpoint: PerpsEndpoint
  requestWeight: number
  actionWeight: number
}
export interface RateLimited {
  endpoint: PerpsEndpoint
  error: RateLimitError
}

export interface HarnessOptions extends Partial<PerpsClientConfig> {
  salt?: number | undefined
}

export function createHarness(options: HarnessOptions = {}): Harness {
  const agent = new MockAgent()
  agent.disableNetConnect()
  const pool = agent.get(ORIGIN)
  const clock = options.clock instanceof FakeClock ? options.clock : new FakeClock()
  const requests: RecordedRequest[] = []
  const charges: Charge[] = []
  const rateLimited: RateLimited[] = []
  const salts = fixedRandom(options.salt ?? 123_456_789)
  const { salt: _salt, ...config } = options
  const client = createPerpsClient({
    baseUrl: ORIGIN,
    http: { dispatcher: agent },
    clock,
    random: fixedRandom(0),
    readRetry: NO_RETRY,
    credentials: { proxy: PROXY_ADDRESS, secret: SECRET },
    signer: new CommandSigner({ privateKey: PROXY_PK, clock, salts }),
    ownerSigner: new CommandSigner({ privateKey: OWNER_PK, clock, salts }),
    // A recording gate: each request's weights on admission, each 429 as thrown by the send.
    gate: {
      admit: async (r) => {
        charges.push({ endpoint: r.endpoint, requestWeight: r.requestWeight, actionWeight: r.actionWeight })
        return {
          sending: () => undefined,
          settle: async (e?: unknown) => {
            if (e instanceof RateLimitError) rateLimited.push({ endpoint: r.endpoint, error: e })
          },
          release: () => undefined,
        }
      },
    },
    ...config,
  })
  const any = { path: () => true, method: () => true }
  return {
    client,
    agent,
    clock,
    requests,
    charges,
    rateLimited,
    reply(r) {
      this.respond(() => r)
    },
    respond(fn) {
      pool.intercept(any).reply((opts) => {
        const headers: Record<string, string> = {}
        for (const [k, v] of Object.entries((opts.headers ?? {}) as Record<string, string>))
          headers[k.toLowerCase()] = v
        const body = typeof opts.body === 'string' ? opts.body : undefined
        const req: RecordedRequest = {
          method: opts.method,
          path: opts.path,
          headers,
          body,
          json: body === undefined ? undefined : JSON.parse(body),
        }
        requests.push(req)
        const r = fn(req)
        return {
          statusCode: r.status ?? 200,
          data: r.raw ?? JSON.stringify(r.body ?? null),
          responseOptions: { headers: { 'content-type': 'application/json', ...r.headers } },
        }
      })
    },
    fail(error) {
      pool.intercept(any).replyWithError(error)
    },
    only() {
      if (requests.length !== 1) throw new Error(`expected exactly one request, got ${requests.length}`)
      return requests[0] as RecordedRequest
    },
    async close() {
      await client.close()
      await agent.close()
    },
  }
}

// ---- wire fixtures ------------------------------------------------------------------------------

export const INDEX_BODY = {
  asset: 'NVDA',
  index_price: '160.00',
  constituents: [{ source: 'chainlink', symbol: 'NVDA/USD', weight: '1.0', price: '160.00' }],
  ts: 1767225600000,
}

export const PUBLIC_PORTFOLIO_BODY = {
  positions: [
    {
      instrument_id: 1,
      symbol: 'NVDA-USDC',
      size: '-2.5',
      entry_price: '160.12',
      unrealized_pnl: '-0.0000000000000000000000000001',
      return_on_equity: '-0.0027',
    },
  ],
  equity: '1000.00',
  timestamp: T0,
}

export const STATISTICS_BODY = [
  {
    instrument_id: 1,
    symbol: 'NVDA-USDC',
    volume: '1000.00',
    open_price: '100.50',
    klines: [[1767225600000, '100.00', '105.00', '99.00', '102.00', '500.00', 42]],
  },
  { instrument_id: 2, symbol: 'BTC-USDC', volume: '3.5', open_price: '90000', klines: [] },
]

export const FEES_BODY = {
  fee_schedule: [
    {
      instrument_type: 'perpetual',
      category: 'equity',
      taker_fee_rate: '0.0004',
      maker_fee_rate: '-0.000125',
      tiers: [{ min_volume_30d: '5000000', taker_fee_rate: '0.0002', maker_fee_rate: '-0.00005' }],
    },
  ],
}

export const ASSETS_BODY = [
  {
    asset: 'pUSD',
    address: '0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB',
    decimals: 6,
    collateral_ratio: '1.00',
    withdrawal_fee: '5.00',
  },
]

export const EXCHANGE_BODY = {
  name: 'Polymarket',
  version: '1',
  chain_id: 137,
  contract: '0xDCa4af75705dbB50f62437045afF9921947917d2',
  cancel_only: false,
}

export const INSTRUMENT = {
  instrument_id: 1,
  instrument_type: 'perpetual',
  category: 'equity',
  isolated_only: false,
  symbol: 'NVDA-USDC',
  base_asset: 'NVDA',
  quote_asset: 'USDC',
  funding_interval: '1h',
  quantity_decimals: 2,
  price_decimals: 2,
  price_bounds: '0.05',
  liquidation_fee: '0.025',
  max_order_count: 200,
  min_notional: '1.00',
  max_market_notional: '1000000.00',
  max_limit_notional: '10000000.00',
  max_leverage: 20,
  risk_tiers: [{ lower_bound: '0', max_leverage: 20 }],
  close_only: false,
  display_symbol: 'NVDA',
}

export const PORTFOLIO_BODY = {
  positions: [
    {
      instrument_id: 1,
      symbol: 'NVDA-USDC',
      size: '2',
      entry_price: '160',
      leverage: 5,
      cross: true,
      initial_margin: '64',
      maintenance_margin: '32',
      position_value: '320',
      liquidation_price: '130.5',
      unrealized_pnl: '1.5',
      return_on_equity: '0.0234',
      cumulative_funding: '-0.12',
    },
  ],
  margin: {
    total_account_value: '1001.5',
    total_initial_margin: '64',
    total_maintenance_margin: '32',
    total_position_value: '320',
  },
  withdrawable: '900',
  in_liquidation: false,
  timestamp: T0,
}

export const CREDENTIALS_BODY = {
  address: OWNER_ADDRESS,
  keys: [{ proxy: PROXY_ADDRESS, expiry: 1767225600000, label: 'trading-bot' }],
}

export const ORDER_DATA = {
  order_id: 42,
  instrument_id: 1,
  buy: true,
  price: '100.5',
  quantity: '10.00',
  tif: 'gtc',
  post_only: true,
  ro: false,
  status: 'open',
  resting_quantity: '9.00',
  filled_quantity: '1.00',
  created_timestamp: T0 - 1000,
  updated_timestamp: T0 - 500,
  client_order_id: '0123456789abcdef0123456789abcdef',
}

export function withdrawal(id: number, createdTs: number, status = 'confirmed'): Record<string, unknown> {
  return {
    withdraw_id: id,
    asset: 'pUSD',
    amount: '100000000',
    to: OWNER_ADDRESS,
    fee: '5.00',
    status,
    hash: status === 'pending' ? '0x' : `0x${'ab'.repeat(32)}`,
    confirmations: 12,
    required_confirmations: 12,
    created_timestamp: createdTs,
    ...(status === 'confirmed' ? { confirmed_timestamp: createdTs + 60_000 } : {}),
  }
}

export function funding(ts: number, iid = 1, id?: number): Record<string, unknown> {
  return {
    ...(id === undefined ? {} : { id }),
    instrument_id: iid,
    size: '-2',
    funding_rate: '0.0001',
    funding_asset: 'USDC',
    funding: '0.032',
    timestamp: ts,
  }
}

export const TERSE_ORDER = {
  oid: 42,
  iid: 1,
  buy: true,
  p: '101',
  qty: '12',
  tif: 'gtc',
  po: true,
  ro: false,
  status: 'open',
  rest: '11',
  fill: '1',
  cts: T0 - 1000,
  uts: T0,
}

/** `GET /v1/info/tickers` rows (the official bindings' long names). */
export const TICKERS_BODY = [
  {
    instrument_id: 1,
    symbol: 'NVDA-USDC',
    index_price: '160.12',
    mark_price: '160.2',
    last_price: '160.1',
    mid_price: '160.15',
    open_interest: '1200.5',
    funding_rate: '0.0000125',
    next_funding: 1767229200000,
    timestamp: 1767225600000,
  },
  {
    instrument_id: 2,
    symbol: 'BTC-USDC',
    index_price: '98000',
    mark_price: '98010',
    last_price: '98005',
    mid_price: '98007',
    open_interest: '3.25',
    funding_rate: '-0.00001',
    next_funding: 1767229200000,
  },
]

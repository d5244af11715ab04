/**
 * The official schemas as the oracle (issue 23, point 1a): for every perps REST endpoint, stream
 * channel and Gamma resource that both `@polymarket/bindings` 0.2.0 and the project read, payloads
 * generated from the official zod schema (zodArbitrary.ts: edge decimals, nulls, absent optionals,
 * extra fields, ms/µs times, u32 ids) must parse in the project, or every refusal must be one the
 * table below names with its reason, and a refusal inside a list must drop that row, never the read.
 * The covered / not covered list is printed and kept in docs/contract.md.
 *
 * The bindings import on Node 20 as well as 24 (only the official client's runtime needs 24), so this
 * runs under both; the mock side (point 1b) is officialMockOracle.test.ts.
 */
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import type { z } from 'zod'
import { EventDetailSchema } from '../../src/catalogue/schemas/event.ts'
import { EventsKeysetResponseSchema, EventTagsResponseSchema } from '../../src/catalogue/schemas/responses.ts'
import {
  CreateProxyResult,
  Credentials,
  FillsPage,
  FundingPage,
  Portfolio,
  WithdrawalsPage,
} from '../../src/perps/schemas/account.ts'
import {
  AccountConfig,
  Balances,
  DepositsPage,
  HistoryPointsPage,
  UpdateLeverageResult,
} from '../../src/perps/schemas/accountState.ts'
import { OkAck } from '../../src/perps/schemas/common.ts'
import { FeeSchedule, Instruments, Statistics } from '../../src/perps/schemas/info.ts'
import { Book, FundingRatesPage, KlinesPage, TradesPage } from '../../src/perps/schemas/market.ts'
import { CancelResults, CreateOrderAcks, OpenOrders } from '../../src/perps/schemas/orders.ts'
import { Tickers } from '../../src/perps/schemas/tickers.ts'
import { collectDroppedItems } from '../../src/perps/schemas/tolerantArray.ts'
import { canonicalWireDecimal } from '../../src/perps/schemas/wireDecimal.ts'
import { PUSH_DATA_SCHEMAS } from '../../src/perps/stream/pushSchemas.ts'
import { FUZZ_SEED } from '../fuzz/fuzzKit.ts'
import { arbitraryOf } from './zodArbitrary.ts'

type Bindings = typeof import('@polymarket/bindings/perps')
type Subs = typeof import('@polymarket/bindings/subscriptions')
type Gamma = typeof import('@polymarket/bindings/gamma')

interface Pair {
  /** Endpoint or channel, as the docs name it. */
  name: string
  official: z.ZodType
  project: z.ZodType
}

/**
 * Refusals the project may make, by the message it refuses with: each must hold for the generated
 * value, and says why. Anything else the project refuses fails the test with its path.
 */
const MAY_REFUSE: { message: RegExp; reason: string; holds: (v: unknown) => boolean }[] = [
  {
    message: /expected a decimal string/,
    reason: 'a string that denotes no number cannot be a price or an amount',
    holds: (v) => typeof v !== 'string' || canonicalWireDecimal(v) === undefined,
  },
  {
    message: /0x-prefixed 20-byte hex address/,
    reason: 'not an EVM address: signatures hash addresses verbatim',
    holds: (v) => typeof v !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(v),
  },
  {
    message: /Too big: expected number to be <=4294967295/,
    reason: 'instrument ids are signed as u32: a larger id could never be traded',
    holds: (v) => typeof v !== 'number' || v > 4_294_967_295,
  },
  {
    message: /Invalid input|expected a number or a numeric string/,
    reason:
      'Gamma volumes/liquidity that are no number: the catalogue refuses them (its documented exception, test/catalogue/schemas/officialParity.test.ts)',
    holds: (v) => typeof v === 'string' && v.trim() !== '' && !Number.isFinite(Number(v)),
  },
  {
    message: /expected an amount in base units/,
    reason: 'an amount in base units is a whole number of units',
    holds: (v) => typeof v !== 'string' || !/^\d+$/.test(v),
  },
  {
    message: /Too big: expected number to be <=18/,
    reason: 'more than 18 price or quantity decimals: beyond what the tick arithmetic and the venue use',
    holds: (v) => typeof v !== 'number' || v > 18,
  },
  {
    message: /expected 0x-prefixed hex/,
    reason: 'a transaction hash that is not hex is no hash',
    holds: (v) => typeof v !== 'string' || !/^0x[0-9a-fA-F]*$/.test(v),
  },
]

let pairs: Pair[]
let uncovered: { name: string; why: string }[]

beforeAll(async () => {
  const b: Bindings = await import('@polymarket/bindings/perps')
  const s: Subs = await import('@polymarket/bindings/subscriptions')
  const g: Gamma = await import('@polymarket/bindings/gamma')
  const dataOf = (event: z.ZodType): z.ZodType => {
    // The event schemas are `envelope.extend({ch, data}).transform(...)`: take the data field.
    const def = (event as unknown as { _zod: { def: { in?: { shape?: Record<string, z.ZodType> } } } })._zod
      .def
    const data = def.in?.shape?.data
    if (data === undefined) throw new Error('event schema without data')
    return data
  }
  pairs = [
    {
      name: 'GET /v1/info/instruments',
      official: b.FetchPerpsInstrumentsResponseSchema,
      project: Instruments,
    },
    { name: 'GET /v1/info/tickers', official: b.FetchPerpsTickersResponseSchema, project: Tickers },
    { name: 'GET /v1/info/statistics', official: b.FetchPerpsStatisticsResponseSchema, project: Statistics },
    { name: 'GET /v1/info/fees', official: b.FetchPerpsFeesResponseSchema, project: FeeSchedule },
    { name: 'GET /v1/account/portfolio', official: b.FetchPerpsPortfolioResponseSchema, project: Portfolio },
    {
      name: 'GET /v1/account/open-orders',
      official: b.FetchPerpsOpenOrdersResponseSchema,
      project: OpenOrders,
    },
    { name: 'GET /v1/account/orders', official: b.FetchPerpsOrdersResponseSchema, project: OpenOrders },
    { name: 'GET /v1/account/fills', official: b.ListPerpsFillsResponseSchema, project: FillsPage },
    {
      name: 'GET /v1/account/funding',
      official: b.ListPerpsFundingPaymentsResponseSchema,
      project: FundingPage,
    },
    {
      name: 'GET /v1/account/withdrawals',
      official: b.ListPerpsWithdrawalsResponseSchema,
      project: WithdrawalsPage,
    },
    { name: 'GET /v1/account/credentials', official: b.PerpsCredentialsResponseSchema, project: Credentials },
    {
      name: 'POST /v1/account/proxy',
      official: b.PerpsCreateProxyResponseSchema,
      project: CreateProxyResult,
    },
    {
      name: 'POST /v1/trade/orders (acks)',
      official: zArray(b.PerpsPostOrderAckSchema),
      project: CreateOrderAcks,
    },
    {
      name: 'DELETE /v1/trade/orders (results)',
      official: zArray(b.PerpsCancelOrderResultSchema),
      project: CancelResults,
    },
    { name: 'DELETE /v1/trade/orders/all', official: b.PerpsCancelAllOrdersResponseSchema, project: OkAck },
    { name: 'GET /v1/info/book', official: b.PerpsBookSchema, project: Book },
    { name: 'GET /v1/info/klines', official: b.FetchPerpsCandlesResponseSchema, project: KlinesPage },
    { name: 'GET /v1/info/trades', official: b.FetchPerpsTradesResponseSchema, project: TradesPage },
    {
      name: 'GET /v1/info/funding',
      official: b.FetchPerpsFundingHistoryResponseSchema,
      project: FundingRatesPage,
    },
    { name: 'GET /v1/account/balances', official: b.FetchPerpsBalancesResponseSchema, project: Balances },
    { name: 'GET /v1/account/deposits', official: b.ListPerpsDepositsResponseSchema, project: DepositsPage },
    {
      name: 'GET /v1/account/equity',
      official: b.ListPerpsEquityHistoryResponseSchema,
      project: HistoryPointsPage,
    },
    {
      name: 'GET /v1/account/pnl',
      official: b.ListPerpsPnlHistoryResponseSchema,
      project: HistoryPointsPage,
    },
    {
      name: 'GET /v1/account/config',
      official: b.FetchPerpsAccountConfigResponseSchema,
      project: AccountConfig,
    },
    {
      name: 'PATCH /v1/trade/leverage',
      official: b.PerpsUpdateLeverageResultSchema,
      project: UpdateLeverageResult,
    },
    { name: 'ws tickers', official: dataOf(s.PerpsTickerEventSchema), project: PUSH_DATA_SCHEMAS.tickers },
    {
      name: 'ws statistics',
      official: dataOf(s.PerpsStatisticEventSchema),
      project: PUSH_DATA_SCHEMAS.statistics,
    },
    { name: 'ws bbo', official: dataOf(s.PerpsBboEventSchema), project: PUSH_DATA_SCHEMAS.bbo },
    { name: 'ws book', official: dataOf(s.PerpsBookEventSchema), project: PUSH_DATA_SCHEMAS.book },
    { name: 'ws klines', official: dataOf(s.PerpsCandleEventSchema), project: PUSH_DATA_SCHEMAS.klines },
    { name: 'ws trades', official: dataOf(s.PerpsTradeEventSchema), project: PUSH_DATA_SCHEMAS.trades },
    {
      name: 'ws portfolio',
      official: dataOf(s.PerpsPortfolioUpdateEventSchema),
      project: PUSH_DATA_SCHEMAS.portfolio,
    },
    { name: 'ws orders', official: dataOf(s.PerpsOrderUpdateEventSchema), project: PUSH_DATA_SCHEMAS.orders },
    { name: 'ws fills', official: dataOf(s.PerpsFillUpdateEventSchema), project: PUSH_DATA_SCHEMAS.fills },
    {
      name: 'ws funding',
      official: dataOf(s.PerpsFundingUpdateEventSchema),
      project: PUSH_DATA_SCHEMAS.funding,
    },
    {
      name: 'ws withdrawals',
      official: dataOf(s.PerpsWithdrawalUpdateEventSchema),
      project: PUSH_DATA_SCHEMAS.withdrawals,
    },
    {
      name: 'ws balances',
      official: dataOf(s.PerpsBalanceUpdateEventSchema),
      project: PUSH_DATA_SCHEMAS.balances,
    },
    {
      name: 'ws deposits',
      official: dataOf(s.PerpsDepositUpdateEventSchema),
      project: PUSH_DATA_SCHEMAS.deposits,
    },
    {
      name: 'Gamma GET /events/keyset',
      official: g.ListEventsKeysetResponseSchema,
      project: EventsKeysetResponseSchema,
    },
    { name: 'Gamma GET /events/slug/{slug}', official: g.EventSchema, project: EventDetailSchema },
    {
      name: 'Gamma GET /events/{id}/tags',
      official: g.FetchEventTagsResponseSchema,
      project: EventTagsResponseSchema,
    },
  ]
  uncovered = [
    { name: 'PATCH /v1/trade/orders (modify)', why: 'no official schema (the client has no modify)' },
    {
      name: 'PATCH /v1/trade/auto-cancel, GET /v1/account/auto-cancel',
      why: 'no official schema (not in the client)',
    },
    { name: 'ws tpsl::{n}', why: 'the bot places no TP/SL orders, so the channel is not read' },
    { name: 'ws notifications', why: 'no official schema (the bindings do not read it)' },
  ]
})

function zArray(item: z.ZodType): z.ZodType {
  // The bindings build their batch answers as z.array(item) inside the client: the same here.
  return (item as unknown as { array(): z.ZodType }).array()
}

/** The value at a zod issue path. */
function at(value: unknown, path: readonly PropertyKey[]): unknown {
  let v = value
  for (const k of path) v = v !== null && typeof v === 'object' ? Reflect.get(v, k) : undefined
  return v
}

const norm = (path: readonly PropertyKey[]) =>
  path.map((k) => (typeof k === 'number' ? '*' : String(k))).join('.')

/** The bindings' own transforms throw (invariant) on values their refinements reject: that is a no. */
function officialAccepts(schema: z.ZodType, wire: unknown): boolean {
  try {
    return schema.safeParse(wire).success
  } catch {
    return false
  }
}

interface Outcome {
  samples: number
  refusals: Map<string, { scope: 'row' | 'read'; reason: string }>
  unexplained: string[]
}

function oracle(pair: Pair, runs: number): Outcome {
  const out: Outcome = { samples: 0, refusals: new Map(), unexplained: [] }
  fc.assert(
    fc.property(arbitraryOf(pair.official), (generated) => {
      // What the wire would carry: JSON, so absent fields vanish.
      const wire: unknown = JSON.parse(JSON.stringify(generated) ?? 'null')
      if (!officialAccepts(pair.official, wire)) return
      out.samples++
      const { value: r, dropped } = collectDroppedItems(() => pair.project.safeParse(wire))
      const issues = r.success ? [] : r.error.issues
      for (const i of issues) {
        const rule = MAY_REFUSE.find((m) => m.message.test(i.message))
        if (rule === undefined || !rule.holds(at(wire, i.path))) {
          out.unexplained.push(`${norm(i.path)}: ${i.message} (value ${JSON.stringify(at(wire, i.path))})`)
          continue
        }
        out.refusals.set(norm(i.path), { scope: 'read', reason: rule.reason })
      }
      for (const line of dropped) {
        const m = /^\[([^\]]*)\]: (.*)$/.exec(line)
        const rule = MAY_REFUSE.find((x) => x.message.test(m?.[2] ?? line))
        if (rule === undefined) {
          out.unexplained.push(`dropped row: ${line}`)
          continue
        }
        out.refusals.set(`row ${(m?.[1] ?? '').replace(/^\d+/, '*').replace(/\.\d+/g, '.*')}`, {
          scope: 'row',
          reason: rule.reason,
        })
      }
    }),
    { numRuns: runs, seed: FUZZ_SEED, endOnFailure: true },
  )
  return out
}

describe('the official bindings are the oracle: generated payloads parse in the project', () => {
  it('every endpoint and channel known to both: parses, or refuses only what the table names (rows, not reads, in lists)', () => {
    const report: string[] = []
    const failures: string[] = []
    for (const pair of pairs) {
      const o = oracle(pair, 80)
      report.push(`  covered  ${pair.name}: ${o.samples} official payloads`)
      const scope = (r: { scope: string }) =>
        r.scope === 'row'
          ? 'that row dropped'
          : pair.name.startsWith('ws ')
            ? 'that push: a gap, then a REST read'
            : 'the read'
      for (const [field, r] of o.refusals)
        report.push(`           refuses ${field} (${scope(r)}): ${r.reason}`)
      if (o.samples < 3)
        failures.push(`${pair.name}: only ${o.samples} generated payloads passed the official schema`)
      for (const u of [...new Set(o.unexplained)].slice(0, 5)) failures.push(`${pair.name}: ${u}`)
    }
    for (const u of uncovered) report.push(`  NOT covered ${u.name}: ${u.why}`)
    console.log(
      `official-schema oracle (bindings 0.2.0, Node ${process.versions.node}):\n${report.join('\n')}`,
    )
    expect(failures).toEqual([])
  }, 120_000)
})

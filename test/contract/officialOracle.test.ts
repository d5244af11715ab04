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
import { describe, expect, it } from 'vitest'
import type { z } from 'zod'
import { EventDetailSchema } from '../../src/catalogue/schemas/event.ts'
import { EventsKeysetResponseSchema, EventTagsResponseSchema } from '../../src/catalogue/schemas/responses.ts'
import { AutoCancelAck } from '../../src/perps/client/setAutoCancel.ts'
import {
  CreateProxyResult,
  Credentials,
  FillsPage,
  FundingPage,
  Portfolio,
  WithdrawalsPage,
} from '../../src/perps/schemas/account.ts'
import { AccountStats, DeleteProxyResult, WithdrawResult } from '../../src/perps/schemas/accountAdmin.ts'
import {
  AccountConfig,
  AutoCancelStatus,
  Balances,
  DepositsPage,
  HistoryPointsPage,
  UpdateLeverageResult,
} from '../../src/perps/schemas/accountState.ts'
import { OkAck } from '../../src/perps/schemas/common.ts'
import { FeeSchedule, Instruments, Statistics } from '../../src/perps/schemas/info.ts'
import { Book, FundingRatesPage, KlinesPage, TradesPage } from '../../src/perps/schemas/market.ts'
import { NotificationsPage, NotificationsResyncFrame } from '../../src/perps/schemas/notifications.ts'
import { CancelResults, CreateOrderAcks, OpenOrders } from '../../src/perps/schemas/orders.ts'
import { Tickers } from '../../src/perps/schemas/tickers.ts'
import { collectDroppedItems } from '../../src/perps/schemas/tolerantArray.ts'
import { canonicalWireDecimal } from '../../src/perps/schemas/wireDecimal.ts'
import { PUSH_DATA_SCHEMAS } from '../../src/perps/stream/pushSchemas.ts'
import { FUZZ_SEED } from '../fuzz/fuzzKit.ts'
import { arbitraryOf } from './zodArbitrary.ts'

/** A module of the bindings, read by export name (the pairs below name the schema of each version). */
type Module = Record<string, unknown>

/** The official versions the oracle runs on: the client's own (0.2.0) and the newest bindings (0.10.0). */
const VERSIONS = [
  {
    label: '0.2.0',
    load: async (): Promise<Module[]> => [
      { ...(await import('@polymarket/bindings/perps')) },
      { ...(await import('@polymarket/bindings/subscriptions')) },
      { ...(await import('@polymarket/bindings/gamma')) },
    ],
  },
  {
    label: '0.10.0',
    load: async (): Promise<Module[]> => [
      { ...(await import('@polymarket/bindings-0.10/perps')) },
      { ...(await import('@polymarket/bindings-0.10/subscriptions')) },
      { ...(await import('@polymarket/bindings-0.10/gamma')) },
    ],
  },
] as const

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

const isSchema = (v: unknown): v is z.ZodType =>
  typeof v === 'object' && v !== null && 'safeParse' in v && typeof v.safeParse === 'function'

/** The data field of an event schema (`envelope.extend({ch, data}).transform(...)`). */
function dataOf(event: z.ZodType): z.ZodType {
  const def = (event as unknown as { _zod: { def: { in?: { shape?: Record<string, z.ZodType> } } } })._zod.def
  const data = def.in?.shape?.data
  if (data === undefined) throw new Error('event schema without data')
  return data
}

/**
 * Every pair the project and an official version both know: `[name, official export, how to take it,
 * project schema]`. An export a version lacks makes that pair "not in this version" (listed).
 */
type Take = 'schema' | 'array' | 'data'
const PAIRS: readonly [string, number, string, Take, z.ZodType][] = [
  ['GET /v1/info/instruments', 0, 'FetchPerpsInstrumentsResponseSchema', 'schema', Instruments],
  ['GET /v1/info/tickers', 0, 'FetchPerpsTickersResponseSchema', 'schema', Tickers],
  ['GET /v1/info/statistics', 0, 'FetchPerpsStatisticsResponseSchema', 'schema', Statistics],
  ['GET /v1/info/fees', 0, 'FetchPerpsFeesResponseSchema', 'schema', FeeSchedule],
  ['GET /v1/account/portfolio', 0, 'FetchPerpsPortfolioResponseSchema', 'schema', Portfolio],
  ['GET /v1/account/open-orders', 0, 'FetchPerpsOpenOrdersResponseSchema', 'schema', OpenOrders],
  ['GET /v1/account/orders', 0, 'FetchPerpsOrdersResponseSchema', 'schema', OpenOrders],
  ['GET /v1/account/fills', 0, 'ListPerpsFillsResponseSchema', 'schema', FillsPage],
  ['GET /v1/account/funding', 0, 'ListPerpsFundingPaymentsResponseSchema', 'schema', FundingPage],
  ['GET /v1/account/withdrawals', 0, 'ListPerpsWithdrawalsResponseSchema', 'schema', WithdrawalsPage],
  ['GET /v1/account/credentials', 0, 'PerpsCredentialsResponseSchema', 'schema', Credentials],
  ['GET /v1/account/auto-cancel', 0, 'FetchPerpsAutoCancelStatusResponseSchema', 'schema', AutoCancelStatus],
  ['GET /v1/account/stats', 0, 'FetchPerpsAccountStatsResponseSchema', 'schema', AccountStats],
  ['GET /v1/account/notifications', 0, 'ListPerpsNotificationsResponseSchema', 'schema', NotificationsPage],
  ['POST /v1/account/proxy', 0, 'PerpsCreateProxyResponseSchema', 'schema', CreateProxyResult],
  ['DELETE /v1/account/proxy', 0, 'PerpsDeleteProxyResponseSchema', 'schema', DeleteProxyResult],
  ['POST /v1/account/withdraw', 0, 'PerpsWithdrawResponseSchema', 'schema', WithdrawResult],
  ['POST /v1/trade/orders (acks)', 0, 'PerpsPostOrderAckSchema', 'array', CreateOrderAcks],
  ['DELETE /v1/trade/orders (results)', 0, 'PerpsCancelOrderResultSchema', 'array', CancelResults],
  ['DELETE /v1/trade/orders/all', 0, 'PerpsCancelAllOrdersResponseSchema', 'schema', OkAck],
  ['PATCH /v1/trade/leverage', 0, 'PerpsUpdateLeverageResultSchema', 'schema', UpdateLeverageResult],
  ['PATCH /v1/trade/auto-cancel', 0, 'PerpsAutoCancelResponseSchema', 'schema', AutoCancelAck],
  ['GET /v1/info/book', 0, 'PerpsBookSchema', 'schema', Book],
  ['GET /v1/info/klines', 0, 'FetchPerpsCandlesResponseSchema', 'schema', KlinesPage],
  ['GET /v1/info/trades', 0, 'FetchPerpsTradesResponseSchema', 'schema', TradesPage],
  ['GET /v1/info/funding', 0, 'FetchPerpsFundingHistoryResponseSchema', 'schema', FundingRatesPage],
  ['GET /v1/account/balances', 0, 'FetchPerpsBalancesResponseSchema', 'schema', Balances],
  ['GET /v1/account/deposits', 0, 'ListPerpsDepositsResponseSchema', 'schema', DepositsPage],
  ['GET /v1/account/equity', 0, 'ListPerpsEquityHistoryResponseSchema', 'schema', HistoryPointsPage],
  ['GET /v1/account/pnl', 0, 'ListPerpsPnlHistoryResponseSchema', 'schema', HistoryPointsPage],
  ['GET /v1/account/config', 0, 'FetchPerpsAccountConfigResponseSchema', 'schema', AccountConfig],
  ['ws tickers', 1, 'PerpsTickerEventSchema', 'data', PUSH_DATA_SCHEMAS.tickers],
  ['ws statistics', 1, 'PerpsStatisticEventSchema', 'data', PUSH_DATA_SCHEMAS.statistics],
  ['ws bbo', 1, 'PerpsBboEventSchema', 'data', PUSH_DATA_SCHEMAS.bbo],
  ['ws book', 1, 'PerpsBookEventSchema', 'data', PUSH_DATA_SCHEMAS.book],
  ['ws klines', 1, 'PerpsCandleEventSchema', 'data', PUSH_DATA_SCHEMAS.klines],
  ['ws trades', 1, 'PerpsTradeEventSchema', 'data', PUSH_DATA_SCHEMAS.trades],
  ['ws portfolio', 1, 'PerpsPortfolioUpdateEventSchema', 'data', PUSH_DATA_SCHEMAS.portfolio],
  ['ws orders', 1, 'PerpsOrderUpdateEventSchema', 'data', PUSH_DATA_SCHEMAS.orders],
  ['ws fills', 1, 'PerpsFillUpdateEventSchema', 'data', PUSH_DATA_SCHEMAS.fills],
  ['ws funding', 1, 'PerpsFundingUpdateEventSchema', 'data', PUSH_DATA_SCHEMAS.funding],
  ['ws withdrawals', 1, 'PerpsWithdrawalUpdateEventSchema', 'data', PUSH_DATA_SCHEMAS.withdrawals],
  ['ws balances', 1, 'PerpsBalanceUpdateEventSchema', 'data', PUSH_DATA_SCHEMAS.balances],
  ['ws deposits', 1, 'PerpsDepositUpdateEventSchema', 'data', PUSH_DATA_SCHEMAS.deposits],
  ['ws notifications', 1, 'PerpsNotificationUpdateEventSchema', 'data', PUSH_DATA_SCHEMAS.notifications],
  [
    'ws notifications (resync frame)',
    1,
    'PerpsNotificationsResyncFrameSchema',
    'schema',
    NotificationsResyncFrame,
  ],
  ['Gamma GET /events/keyset', 2, 'ListEventsKeysetResponseSchema', 'schema', EventsKeysetResponseSchema],
  ['Gamma GET /events/slug/{slug}', 2, 'EventSchema', 'schema', EventDetailSchema],
  ['Gamma GET /events/{id}/tags', 2, 'FetchEventTagsResponseSchema', 'schema', EventTagsResponseSchema],
]

/** Endpoints and channels no official version has a schema for. */
const UNCOVERED: { name: string; why: string }[] = [
  { name: 'PATCH /v1/trade/orders (modify)', why: 'no official schema (no official client has modify)' },
  { name: 'PATCH /v1/trade/margin', why: 'no official answer schema (the client sends it, reads no body)' },
]

/** The pairs one version knows, and the names it lacks. */
function pairsOf(mods: readonly Module[]): { pairs: Pair[]; missing: string[] } {
  const pairs: Pair[] = []
  const missing: string[] = []
  for (const [name, at, exportName, take, project] of PAIRS) {
    const v = mods[at]?.[exportName]
    if (!isSchema(v)) {
      missing.push(name)
      continue
    }
    const official = take === 'data' ? dataOf(v) : take === 'array' ? zArray(v) : v
    pairs.push({ name, official, project })
  }
  return { pairs, missing }
}

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
  for (const version of VERSIONS) {
    it(`bindings ${version.label}: every endpoint, channel and command answer known to both parses, or refuses only what the table names (rows, not reads, in lists)`, async () => {
      const { pairs, missing } = pairsOf(await version.load())
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
      for (const m of missing) report.push(`  not in ${version.label}: ${m}`)
      for (const u of UNCOVERED) report.push(`  NOT covered ${u.name}: ${u.why}`)
      console.log(
        `official-schema oracle (bindings ${version.label}, Node ${process.versions.node}):\n${report.join('\n')}`,
      )
      expect(failures).toEqual([])
    }, 180_000)
  }
})

/**
 * The perps client's fill and funding pagers as the reconcile's `VenueHistory`. The one place that
 * knows the venue's fill keys: if the client's normalized fill changes, only `fillInput` changes.
 */
import type { PerpsClient } from '../perps/client/createPerpsClient.ts'
import { fundingKey } from '../perps/client/getFunding.ts'
import type { FundingCharge } from '../perps/schemas/account.ts'
import type { Deposit } from '../perps/schemas/accountState.ts'
import type { FillInput, FundingInput, VenueHistory } from './reconcile.ts'
import type { TransferInput } from './records.ts'

type VenueFill = Parameters<typeof fillInput>[0]

/** The venue's fill (as `GET /v1/account/fills` and the `fills` channel give it) → the journal's. */
export function fillInput(f: {
  tid: number | string
  oid: number
  iid: number
  side: string
  p: string
  qty: string
  taker: boolean
  fee: string
  fea: string
  pnl: string
  liq: boolean
  ts: number
  coid?: string | undefined
}): FillInput {
  return {
    tradeId: f.tid,
    orderId: f.oid,
    iid: f.iid,
    side: f.side,
    price: f.p,
    qty: f.qty,
    taker: f.taker,
    fee: f.fee,
    feeAsset: f.fea,
    realizedPnl: f.pnl,
    liquidation: f.liq,
    ts: f.ts,
    ...(f.coid === undefined ? {} : { coid: f.coid }),
  }
}

export function fundingInput(c: FundingCharge): FundingInput {
  return {
    key: fundingKey(c),
    iid: c.instrument_id,
    size: c.size,
    rate: c.funding_rate,
    asset: c.funding_asset,
    amount: c.funding,
    ts: c.timestamp,
  }
}

/** A deposit (REST row) as the journal's transfer: unique on its hash; amounts in base units, as on the wire. */
export function depositTransfer(d: Deposit, updatedAt: number): TransferInput {
  return {
    kind: 'deposit',
    id: d.hash.slice(0, 80),
    asset: d.asset.slice(0, 16),
    amount: d.amount,
    fee: '0',
    status: String(d.status).slice(0, 32),
    ts: d.created_timestamp,
    updatedAt,
  }
}

export function perpsHistory(
  perps: Pick<PerpsClient, 'paginateFills' | 'paginateFunding' | 'paginateDeposits'>,
): VenueHistory {
  return {
    async *fillPages(w, maxPages) {
      for await (const page of perps.paginateFills(
        { startTimestamp: w.since, endTimestamp: w.until },
        { maxPages },
      ))
        yield { rows: page.data.map((f: VenueFill) => fillInput(f)), more: page.more }
    },
    async *fundingPages(w, maxPages) {
      for await (const page of perps.paginateFunding(
        { startTimestamp: w.since, endTimestamp: w.until },
        { maxPages },
      ))
        yield { rows: page.data.map(fundingInput), more: page.more }
    },
    async *depositPages(w, maxPages) {
      for await (const page of perps.paginateDeposits(
        { startTimestamp: w.since, endTimestamp: w.until },
        { maxPages },
      ))
        yield { rows: page.data.map((d) => depositTransfer(d, w.until)), more: page.more }
    },
  }
}

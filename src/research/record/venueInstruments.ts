/** The venue's instruments as dataset instruments (symbols and decimals), for recording and downloading. */
import { z } from 'zod'
import { Instrument } from '../../perps/schemas/info.ts'
import { DatasetError, type DatasetInstrument } from '../dataset/format.ts'

/** One `GET /v1/info/instruments` row as a dataset instrument. */
export function instrumentOfVenue(r: Instrument): DatasetInstrument {
  return {
    id: r.instrument_id,
    symbol: r.symbol,
    baseAsset: r.base_asset,
    priceDecimals: r.price_decimals,
    quantityDecimals: r.quantity_decimals,
    spec: {
      category: r.category,
      priceBounds: r.price_bounds,
      fundingInterval: r.funding_interval,
      maxLeverage: r.max_leverage,
    },
  }
}

/** The venue's instruments (symbols and decimals) from `GET /v1/info/instruments`. */
export async function venueInstruments(rest: string): Promise<DatasetInstrument[]> {
  const res = await fetch(new URL('/v1/info/instruments', rest), { signal: AbortSignal.timeout(10_000) })
  if (!res.ok) throw new DatasetError(`GET /v1/info/instruments answered ${res.status}`)
  return z
    .array(Instrument)
    .parse(await res.json())
    .map(instrumentOfVenue)
}

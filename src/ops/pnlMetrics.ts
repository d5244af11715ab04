/**
 * PnL and fills on `/metrics`: gauges per instrument (position, realized and unrealized PnL, fees,
 * funding, net PnL) and fill counts by liquidity, read from the PnL ledger at every scrape.
 */
import { Gauge, type Registry } from 'prom-client'
import type { PnlSnapshot } from '../pnlTypes.ts'
import { METRIC_PREFIX } from './metrics.ts'

/** Registers the PnL gauges on `registry`, read from `ledger` at every scrape, labelled by symbol. */
export function registerPnlMetrics(
  registry: Registry,
  ledger: { pnl(): PnlSnapshot },
  instruments: readonly { id: number; symbol: string }[],
): void {
  const symbolOf = (iid: number): string => instruments.find((i) => i.id === iid)?.symbol ?? `#${iid}`
  const source = (): { pnl: PnlSnapshot; symbolOf: (iid: number) => string } => ({
    pnl: ledger.pnl(),
    symbolOf,
  })
  const gauge = (name: string, help: string, pick: (i: PnlSnapshot['instruments'][number]) => string) =>
    new Gauge({
      name: `${METRIC_PREFIX}${name}`,
      help,
      labelNames: ['instrument'],
      registers: [registry],
      collect() {
        this.reset()
        const { pnl, symbolOf } = source()
        for (const [iid, i] of Object.entries(pnl.instruments))
          this.set({ instrument: symbolOf(Number(iid)) }, Number(pick(i)))
      },
    })
  gauge('position_contracts', 'Signed position size per instrument (venue portfolio).', (i) => i.position)
  gauge('pnl_realized', 'Realized PnL from fills since start, quote currency.', (i) => i.realizedPnl)
  gauge('pnl_unrealized', 'Unrealized PnL per the venue portfolio, quote currency.', (i) => i.unrealizedPnl)
  gauge('fees_paid', 'Trading fees paid since start (a maker rebate counts negative).', (i) => i.fees)
  gauge('funding_paid', 'Funding paid since start (received counts negative).', (i) => i.funding)
  gauge('pnl_net', 'Realized + unrealized − fees − funding, quote currency.', (i) => i.netPnl)
  new Gauge({
    name: `${METRIC_PREFIX}fills`,
    help: 'Fills since start per instrument and liquidity (maker or taker).',
    labelNames: ['instrument', 'liquidity'],
    registers: [registry],
    collect() {
      this.reset()
      const { pnl, symbolOf } = source()
      for (const [iid, i] of Object.entries(pnl.instruments)) {
        const instrument = symbolOf(Number(iid))
        this.set({ instrument, liquidity: 'maker' }, i.makerFills)
        this.set({ instrument, liquidity: 'taker' }, i.fills - i.makerFills)
      }
    },
  })
}

import { register as globalRegistry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import {
  alertKeyFamily,
  BATCH_SIZE_BUCKETS,
  createBotMetrics,
  formatStatePath,
  metricsAlertSink,
} from '../../src/ops/metrics.ts'

/** Parses Prometheus text into `name{labels}` → value (labels in exposition order). */
function samples(text: string): Map<string, string> {
  const out = new Map<string, string>()
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const i = line.lastIndexOf(' ')
    out.set(line.slice(0, i), line.slice(i + 1))
  }
  return out
}

async function scrape(m: ReturnType<typeof createBotMetrics>): Promise<Map<string, string>> {
  return samples(await m.registry.metrics())
}

describe('createBotMetrics', () => {
  it('uses its own registry: two bots in one process do not collide and the global registry stays empty', async () => {
    const a = createBotMetrics()
    const b = createBotMetrics()
    a.recordRateLimited('ip_rate_limited')
    expect(a.registry).not.toBe(b.registry)
    expect((await scrape(a)).get('perpbot_rate_limited_total{code="ip_rate_limited"}')).toBe('1')
    expect((await scrape(b)).has('perpbot_rate_limited_total{code="ip_rate_limited"}')).toBe(false)
    expect(await globalRegistry.metrics()).not.toContain('perpbot_')
  })

  it('registers the process default metrics under the perpbot_ prefix, unless disabled', async () => {
    const text = await createBotMetrics().registry.metrics()
    expect(text).toContain('perpbot_process_cpu_user_seconds_total')
    expect(text).toContain('perpbot_nodejs_heap_size_used_bytes')
    const bare = await createBotMetrics({ defaultMetrics: false }).registry.metrics()
    expect(bare).not.toContain('perpbot_process_')
    expect(bare).toContain('perpbot_instrument_state')
  })

  it('sets the current instrument state to 1 and every other seen or known state to 0', async () => {
    const m = createBotMetrics({ defaultMetrics: false, instrumentStates: ['syncing', 'halted.idle'] })
    m.setInstrumentState('BTC-USDC', 'syncing')
    m.setInstrumentState('BTC-USDC', 'active.normal.quoting')
    m.setInstrumentState('ETH-USDC', 'syncing')
    const s = await scrape(m)
    expect(s.get('perpbot_instrument_state{instrument="BTC-USDC",state="syncing"}')).toBe('0')
    expect(s.get('perpbot_instrument_state{instrument="BTC-USDC",state="halted.idle"}')).toBe('0')
    expect(s.get('perpbot_instrument_state{instrument="BTC-USDC",state="active.normal.quoting"}')).toBe('1')
    expect(s.get('perpbot_instrument_state{instrument="ETH-USDC",state="syncing"}')).toBe('1')
    expect(s.has('perpbot_instrument_state{instrument="ETH-USDC",state="active.normal.quoting"}')).toBe(false)

    m.setInstrumentState('BTC-USDC', 'halted.idle')
    const after = await scrape(m)
    expect(after.get('perpbot_instrument_state{instrument="BTC-USDC",state="active.normal.quoting"}')).toBe(
      '0',
    )
    expect(after.get('perpbot_instrument_state{instrument="BTC-USDC",state="halted.idle"}')).toBe('1')
  })

  it('computes quote age at scrape time from the injected clock, and drops it when quotes are gone', async () => {
    const clock = new SimulatedClock()
    clock.set(10_000)
    const m = createBotMetrics({ defaultMetrics: false, clock })
    m.setLastQuoteAt('BTC-USDC', 8_500)
    expect((await scrape(m)).get('perpbot_quote_age_seconds{instrument="BTC-USDC"}')).toBe('1.5')
    clock.increment(2_000)
    expect((await scrape(m)).get('perpbot_quote_age_seconds{instrument="BTC-USDC"}')).toBe('3.5')
    m.setLastQuoteAt('BTC-USDC', undefined)
    expect((await scrape(m)).has('perpbot_quote_age_seconds{instrument="BTC-USDC"}')).toBe(false)
  })

  it('reports margin ratio as NaN until known, +Inf when equity is gone, and the liquidation flag', async () => {
    const m = createBotMetrics({ defaultMetrics: false })
    let s = await scrape(m)
    // prom-client writes `Nan`; Prometheus parses NaN case-insensitively.
    expect(s.get('perpbot_margin_ratio')?.toLowerCase()).toBe('nan')
    expect(s.get('perpbot_in_liquidation')).toBe('0')
    m.setAccount({ marginRatio: 0.42, inLiquidation: false })
    expect((await scrape(m)).get('perpbot_margin_ratio')).toBe('0.42')
    m.setAccount({ marginRatio: Number.POSITIVE_INFINITY, inLiquidation: true })
    s = await scrape(m)
    expect(s.get('perpbot_margin_ratio')).toBe('+Inf')
    expect(s.get('perpbot_in_liquidation')).toBe('1')
  })

  it('exports limiter usage per budget, pushed or pulled from a source at each scrape', async () => {
    const m = createBotMetrics({ defaultMetrics: false })
    m.setLimiterUsage('request', { used: 120, capacity: 1000 })
    let s = await scrape(m)
    expect(s.get('perpbot_limiter_weight_used{budget="request"}')).toBe('120')
    expect(s.get('perpbot_limiter_weight_capacity{budget="request"}')).toBe('1000')
    expect(s.has('perpbot_limiter_weight_used{budget="action"}')).toBe(false)

    let actionUsed = 7
    m.setLimiterSource(() => ({ action: { used: actionUsed, capacity: 5000 } }))
    actionUsed = 9
    s = await scrape(m)
    expect(s.get('perpbot_limiter_weight_used{budget="action"}')).toBe('9')
    expect(s.get('perpbot_limiter_weight_capacity{budget="action"}')).toBe('5000')
    expect(s.get('perpbot_limiter_weight_used{budget="request"}')).toBe('120')
  })

  it('counts batches by command and outcome, with sizes in weight-step buckets and unknown outcomes', async () => {
    const m = createBotMetrics({ defaultMetrics: false })
    m.recordBatch({ command: 'modifyOrders', size: 19, outcome: 'ok' })
    m.recordBatch({ command: 'modifyOrders', size: 20, outcome: 'ok' })
    m.recordBatch({ command: 'createOrders', size: 3, outcome: 'unknown' })
    m.recordBatch({ command: 'cancelOrders', size: 1, outcome: 'error' })
    const s = await scrape(m)
    expect(s.get('perpbot_batch_size_bucket{le="19",command="modifyOrders"}')).toBe('1')
    expect(s.get('perpbot_batch_size_bucket{le="20",command="modifyOrders"}')).toBe('2')
    expect(s.get('perpbot_batch_size_bucket{le="200",command="modifyOrders"}')).toBe('2')
    expect(s.get('perpbot_batch_size_sum{command="modifyOrders"}')).toBe('39')
    expect(s.get('perpbot_batches_total{command="modifyOrders",outcome="ok"}')).toBe('2')
    expect(s.get('perpbot_batches_total{command="createOrders",outcome="unknown"}')).toBe('1')
    expect(s.get('perpbot_batches_total{command="cancelOrders",outcome="error"}')).toBe('1')
    expect(s.get('perpbot_unknown_outcomes_total{command="createOrders"}')).toBe('1')
    expect(s.has('perpbot_unknown_outcomes_total{command="modifyOrders"}')).toBe(false)
    expect(BATCH_SIZE_BUCKETS[0]).toBe(1)
    expect(BATCH_SIZE_BUCKETS.at(-1)).toBe(200)
  })

  it('counts 429s by code and alerts by severity and key family', async () => {
    const m = createBotMetrics({ defaultMetrics: false })
    m.recordRateLimited('action_rate_limited')
    m.recordRateLimited('action_rate_limited')
    const sink = metricsAlertSink(m)
    sink.send({ key: 'withdrawal:42', severity: 'warning', title: 't', message: 'm', at: 0 })
    sink.send({ key: 'withdrawal:43', severity: 'warning', title: 't', message: 'm', at: 0 })
    m.recordAlert({ key: 'margin', severity: 'critical' })
    const s = await scrape(m)
    expect(s.get('perpbot_rate_limited_total{code="action_rate_limited"}')).toBe('2')
    expect(s.get('perpbot_alerts_total{severity="warning",key="withdrawal"}')).toBe('2')
    expect(s.get('perpbot_alerts_total{severity="critical",key="margin"}')).toBe('1')
  })

  it('observes reprice latency in fine sub-millisecond to 50 ms buckets', async () => {
    const m = createBotMetrics({ defaultMetrics: false })
    m.observeRepriceLatency('BTC-USDC', 0.07)
    m.observeRepriceLatency('BTC-USDC', 0.3)
    m.observeRepriceLatency('BTC-USDC', 80)
    const s = await scrape(m)
    expect(s.get('perpbot_reprice_latency_ms_bucket{le="0.1",instrument="BTC-USDC"}')).toBe('1')
    expect(s.get('perpbot_reprice_latency_ms_bucket{le="0.5",instrument="BTC-USDC"}')).toBe('2')
    expect(s.get('perpbot_reprice_latency_ms_bucket{le="50",instrument="BTC-USDC"}')).toBe('2')
    expect(s.get('perpbot_reprice_latency_ms_bucket{le="+Inf",instrument="BTC-USDC"}')).toBe('3')
  })

  it('removes every series of a removed instrument', async () => {
    const m = createBotMetrics({ defaultMetrics: false })
    m.setInstrumentState('SOL-USDC', 'syncing')
    m.setLastQuoteAt('SOL-USDC', 0)
    m.observeRepriceLatency('SOL-USDC', 1)
    m.removeInstrument('SOL-USDC')
    expect(await m.registry.metrics()).not.toContain('SOL-USDC')
  })
})

describe('alertKeyFamily', () => {
  it('keeps the text before the first colon', () => {
    expect(alertKeyFamily('withdrawal:42')).toBe('withdrawal')
    expect(alertKeyFamily('margin')).toBe('margin')
    expect(alertKeyFamily('a:b:c')).toBe('a')
  })
})

describe('formatStatePath', () => {
  it('flattens compound and parallel state values into a dotted path', () => {
    expect(formatStatePath('syncing')).toBe('syncing')
    expect(formatStatePath({ halted: 'cancelling' })).toBe('halted.cancelling')
    const active = { active: { risk: 'widened', work: 'repricing', ticker: 'waiting' } }
    expect(formatStatePath(active)).toBe('active.widened.repricing.waiting')
    expect(formatStatePath(active, ['ticker'])).toBe('active.widened.repricing')
    expect(formatStatePath({ active: { risk: { reduce: 'deep' }, work: 'quoting' } })).toBe(
      'active.reduce.deep.quoting',
    )
  })
})

/**
 * What the protections cost each second: one check (the ledger's snapshot, the rules over every
 * instrument) at 10, 100 and 1,000 instruments with a position each, beside a same-run baseline (the
 * ledger's snapshot alone, which the check reads). CPU time per check (process.cpuUsage), so a busy
 * machine shows in the figures less than in wall time; the load is printed beside them.
 *
 *   node --import tsx bench/protections.ts
 */
import { loadavg } from 'node:os'
import { PnlLedger } from '../src/bot/account/pnlLedger.ts'
import { evaluateProtections, initialProtectionState } from '../src/bot/control/protectionRules.ts'
import { ProtectionSettings } from '../src/settings/protectionSettings.ts'

const cfg = ProtectionSettings.parse({
  maxDailyLoss: 250,
  maxDrawdown: 400,
  maxAccountNotional: 1e9,
  maxInstrumentNotional: 1e9,
  cooldownAfterLossMs: 30_000,
})

function cpuMicros(f: () => void, rounds: number): number {
  const t0 = process.cpuUsage()
  for (let k = 0; k < rounds; k++) f()
  const d = process.cpuUsage(t0)
  return (d.user + d.system) / rounds
}

for (const n of [10, 100, 1_000]) {
  const ledger = new PnlLedger({ sinceStart: true })
  const positions = Array.from({ length: n }, (_, i) => ({
    instrument_id: i + 1,
    size: i % 2 === 0 ? '0.5' : '-0.25',
    entry_price: '100.5',
    unrealized_pnl: '1.25',
  }))
  ledger.observePositions(positions)
  ledger.observePositions(positions.map((p) => ({ ...p, unrealized_pnl: '2.5' })))
  const ids = positions.map((p) => p.instrument_id)
  let state = initialProtectionState()
  let now = Date.UTC(2026, 11, 6)
  const check = (): void => {
    const pnl = ledger.snapshot()
    now += 1_000
    state = evaluateProtections(
      state,
      {
        now,
        netPnl: pnl.account.netPnl,
        currency: 'USDC',
        instruments: ids.map((id) => ({
          id,
          symbol: `I${id}`,
          position: pnl.instruments[id]?.position ?? '0',
          mark: '101.25',
          realizedPnl: pnl.instruments[id]?.realizedPnl ?? '0',
        })),
      },
      cfg,
    ).state
  }
  const rounds = n >= 1_000 ? 200 : 2_000
  // Warm both, then measure the baseline and the check in turn.
  cpuMicros(() => ledger.snapshot(), rounds)
  cpuMicros(check, rounds)
  const baseline = cpuMicros(() => ledger.snapshot(), rounds)
  const full = cpuMicros(check, rounds)
  console.log(
    `${String(n).padStart(5)} instruments: check ${(full / 1000).toFixed(3)} ms CPU (baseline: the ledger snapshot alone ${(baseline / 1000).toFixed(3)} ms); ${((full / 1_000_000) * 100).toFixed(2)}% of one core at one check a second`,
  )
}
console.log(
  `load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
)

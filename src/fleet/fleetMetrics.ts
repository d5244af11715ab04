/**
 * The fleet's gauges on the bot's `/metrics`, and the account as a label on every series of the
 * process (Prometheus default labels), so a fleet's metrics can be told apart and summed per account.
 */
import { Gauge, type Registry } from 'prom-client'
import type { LeaseStatus } from './accountLease.ts'
import type { SharedBudgetState } from './sharedBudget.ts'

export interface FleetMetricsSource {
  readonly account: string
  readonly egressId: string
  readonly holderId: string
  lease(): LeaseStatus
  /** Ms until the holder's own deadline (negative or -Infinity when not held). */
  msLeft(): number
  budget(): SharedBudgetState
}

export function registerFleetMetrics(registry: Registry, s: FleetMetricsSource): void {
  registry.setDefaultLabels({ account: s.account })
  const gauge = (
    name: string,
    help: string,
    labelNames: readonly string[],
    collect: (g: Gauge) => void,
  ): void => {
    new Gauge({
      name,
      help,
      labelNames: [...labelNames],
      registers: [registry],
      collect() {
        collect(this)
      },
    })
  }
  gauge(
    'perpbot_fleet_lease_held',
    'Whether this process holds its account lease and may write (1) or not (0)',
    ['holder', 'state'],
    (g) => {
      const l = s.lease()
      g.reset()
      g.set(
        { holder: s.holderId, state: l.state === 'lost' ? `lost:${l.reason}` : l.state },
        l.state === 'held' ? 1 : 0,
      )
    },
  )
  gauge(
    'perpbot_fleet_lease_epoch',
    'The lease epoch (fencing token, carried in client order ids)',
    [],
    (g) => {
      const l = s.lease()
      g.set(l.state === 'idle' ? 0 : l.epoch)
    },
  )
  gauge(
    'perpbot_fleet_lease_deadline_seconds',
    "Seconds until the holder's own deadline (0 when not held)",
    [],
    (g) => {
      const ms = s.msLeft()
      g.set(Number.isFinite(ms) ? Math.max(0, ms) / 1000 : 0)
    },
  )
  const budget = (name: string, help: string, pick: (b: SharedBudgetState) => number): void =>
    gauge(name, help, ['egress'], (g) => g.set({ egress: s.egressId }, pick(s.budget())))
  budget(
    'perpbot_fleet_budget_weight',
    'Request weight per window shared by every process behind the egress',
    (b) => b.budget,
  )
  budget(
    'perpbot_fleet_budget_window_weight',
    "The fleet's request weight in the window at the last admission",
    (b) => b.windowWeight,
  )
  budget('perpbot_fleet_admissions', 'Admissions granted to this process (cumulative)', (b) => b.admitted)
  budget('perpbot_fleet_admission_refusals', 'Admissions refused with a wait (cumulative)', (b) => b.refused)
  budget('perpbot_fleet_redis_up', 'Whether the fleet Redis answered the last call (1) or not (0)', (b) =>
    b.redisUp ? 1 : 0,
  )
  budget(
    'perpbot_fleet_redis_errors',
    'Fleet Redis errors seen by this process (cumulative)',
    (b) => b.redisErrors,
  )
  budget(
    'perpbot_fleet_script_reloads',
    'Admission scripts sent again after NOSCRIPT (a restarted Redis; cumulative)',
    (b) => b.scriptReloads,
  )
  budget(
    'perpbot_fleet_generations',
    "New fleet Redis generations seen (its data was lost; this process restored its window's admissions)",
    (b) => b.generations,
  )
  budget(
    'perpbot_fleet_restamped',
    'Admissions sent late (a starved process) and stamped again at the send (cumulative)',
    (b) => b.restamped,
  )
  budget('perpbot_fleet_waiting', 'Requests of this process waiting for the shared budget', (b) => b.waiting)
}

/**
 * The fleet as one part of the bot, built by the CLI once the account's lease is held and handed to
 * `startBot`: it wraps the limiter's gate (shared IP budget, then the lease fence right before each
 * send), says whether this process may still write, carries the epoch for client order ids, and
 * registers the fleet's metrics.
 */
import type { Registry } from 'prom-client'
import type { AlertSink } from '../alerts/alert.ts'
import type { Clock } from '../clock.ts'
import type { Logger } from '../logging/logger.ts'
import type { RequestGate } from '../perps/client/context.ts'
import type { PerpsClient } from '../perps/client/createPerpsClient.ts'
import type { Settings } from '../settings/schema.ts'
import type { AccountLease, LeaseStatus } from './accountLease.ts'
import { cancelByEpoch } from './epochOrders.ts'
import { registerFleetMetrics } from './fleetMetrics.ts'
import type { FleetView } from './fleetView.ts'
import { withLeaseFence } from './leaseFence.ts'
import type { SharedBudget } from './sharedBudget.ts'
import { withSharedBudget } from './sharedGate.ts'

export interface FleetPart {
  readonly account: string
  readonly epoch: number
  /** The lease TTL: the dead-man switch's deadline is kept within it. */
  readonly leaseTtlMs: number
  /** The limiter's gate with the shared budget and the fence around it (the perps client's gate). */
  gate(limiter: RequestGate): RequestGate
  /** Whether this process may write for the account now. */
  canWrite(): boolean
  lease(): LeaseStatus
  registerMetrics(registry: Registry): void
  /**
   * At start, before quoting: a predecessor's (a zombie's) orders, ours by tag and of an older epoch,
   * cancelled by id. Returns how many.
   */
  cancelOlderEpochs(
    perps: Pick<PerpsClient, 'getOpenOrders' | 'cancelOrders'>,
    tag: string,
    logger: Pick<Logger, 'info'>,
  ): Promise<number>
  /** The dead-man switch's settings kept within the lease TTL. */
  deadManSettings(settings: Pick<Settings, 'ops'>): Pick<Settings, 'ops'>
  /** Every account of the fleet as Redis has it now (the ops server's `/fleet` page). */
  view(): Promise<FleetView>
  /** Alerts while the fleet's Redis is slow or down (every request waits on it); resolved when well. */
  watchHealth(alerts: AlertSink, clock: Pick<Clock, 'now'>): () => void
}

/** The venue's minimum dead-man deadline: the fleet's backstop never goes below it. */
const VENUE_MIN_DEADLINE_MS = 10_000

/** In a fleet the backstop fires within the lease TTL (never below the venue's 10 s minimum). */
export function fleetDeadMan(settings: Pick<Settings, 'ops'>, leaseTtlMs: number): Pick<Settings, 'ops'> {
  const d = settings.ops.deadManSwitch
  const deadlineMs = Math.min(d.deadlineMs, Math.max(VENUE_MIN_DEADLINE_MS, leaseTtlMs))
  return {
    ops: {
      ...settings.ops,
      deadManSwitch: { ...d, deadlineMs, refreshMs: Math.min(d.refreshMs, Math.floor(deadlineMs / 3)) },
    },
  }
}

export function createFleetPart(o: {
  lease: AccountLease
  budget: SharedBudget
  egressId: string
  /** The fleet's view (joinFleet reads it from Redis). */
  view: () => Promise<FleetView>
}): FleetPart {
  const { lease, budget } = o
  const epoch = lease.epoch
  if (epoch === undefined || lease.status().state !== 'held')
    throw new TypeError('createFleetPart needs a held lease')
  return {
    account: lease.account,
    epoch,
    leaseTtlMs: lease.ttlMs,
    gate: (limiter) => withLeaseFence(withSharedBudget(limiter, budget), lease),
    canWrite: () => lease.canWrite(),
    lease: () => lease.status(),
    registerMetrics: (registry) =>
      registerFleetMetrics(registry, {
        account: lease.account,
        egressId: o.egressId,
        holderId: lease.holderId,
        lease: () => lease.status(),
        msLeft: () => lease.msLeft(),
        budget: () => budget.state(),
      }),
    async cancelOlderEpochs(perps, tag, logger) {
      const n = await cancelByEpoch(perps, tag, (e) => e < epoch)
      logger.info(
        { account: lease.account, epoch, cancelled: n },
        `fleet: holding ${lease.account} at epoch ${epoch}; ${n} order(s) of older epochs cancelled`,
      )
      return n
    },
    deadManSettings: (settings) => fleetDeadMan(settings, lease.ttlMs),
    view: o.view,
    watchHealth: (alerts, clock) =>
      budget.onHealth((h) =>
        alerts.send({
          key: 'fleet-redis',
          severity: h.state === 'down' ? 'critical' : 'warning',
          title:
            h.state === 'ok'
              ? "The fleet's Redis answers in time again"
              : h.state === 'slow'
                ? "The fleet's Redis is slow: every request waits on it"
                : "The fleet's Redis does not answer: nothing is admitted",
          message: `${h.reason} (last admission ${Math.round(h.ms)} ms); requests wait for the shared budget meanwhile`,
          at: clock.now(),
          ...(h.state === 'ok' ? { resolved: true } : {}),
        }),
      ),
  }
}

/**
 * The fleet as one part of the bot, built by the CLI once the account's lease is held and handed to
 * `startBot`: it wraps the limiter's gate (shared IP budget, then the lease fence right before each
 * send), says whether this process may still write, carries the epoch for client order ids, and
 * registers the fleet's metrics.
 */
import type { Registry } from 'prom-client'
import type { RequestGate } from '../perps/client/context.ts'
import type { AccountLease, LeaseStatus } from './accountLease.ts'
import { registerFleetMetrics } from './fleetMetrics.ts'
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
}

export function createFleetPart(o: {
  lease: AccountLease
  budget: SharedBudget
  egressId: string
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
  }
}

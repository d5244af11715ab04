/**
 * The venue port: the engine's one swap point (issue 37). Everything the engine needs from a venue
 * crosses here, and the engine is the same for every adapter (venueAdapters.ts): the real venue over
 * HTTP, the embedded mock's exchange core (dry run, simulate on its stepped clock), the replay of a
 * dataset through that core (`simulate --data`), and the paper book on the live market.
 *
 * What crosses, by direction (the perps protocol is the port's wire format, so each adapter is a
 * transport to an exchange that speaks it; signing and the throttle sit in the engine's client):
 * - commands in: the client's batch commands, cancel-all and the dead-man switch, signed by the
 *   engine's proxy key, admitted by its throttle, sent on `commands`;
 * - events out: market (tickers, statistics, best bid/offer), order, fill and account (portfolio,
 *   withdrawals) pushes on `events` (the stream), with the same reads over `commands` as the safety net;
 * - the clock: the venue's base time, which the engine corrects by the venue's own clock.
 */
import type { VenueLink } from '../bot/startup/connect.ts'
import type { Clock } from '../clock.ts'
import type { HttpTransport } from '../http/transport.ts'
import type { Secrets } from '../settings/schema.ts'

/** Which venue: the real one, or one of the local books. */
export type VenueKind = 'live' | 'dry-run' | 'paper' | 'simulate' | 'replay'

/** How commands and reads reach the venue. */
export type VenueCommands =
  /** HTTP to an address (the real venue, or a local book on loopback). */
  | { via: 'http'; perpsUrl: string; catalogueUrl: string }
  /** Calls into a local book in this process: no socket, ordered delivery (simulate, replay). */
  | { via: 'in-process'; transports: { perps: HttpTransport; catalogue: HttpTransport } }

/** Whose account trades, and with which keys. */
export type VenueAccount =
  /** The operator's keys (PERPS_PROXY_PRIVATE_KEY / PERPS_PROXY_SECRET), already checked. */
  | { kind: 'keys'; secrets: Secrets }
  /** A local book's own account: keys generated and a proxy registered at start (dry run, simulate). */
  | { kind: 'self-provisioned'; secrets: Secrets }
  /** The paper account's fixed local keys (they sign only for the local book). */
  | { kind: 'local-keys'; secrets: Secrets }

export interface VenuePort {
  readonly kind: VenueKind
  /** The venue's base clock: the system's, the embedded mock's (virtual, accelerated), or stepped. */
  readonly clock: Clock
  readonly commands: VenueCommands
  /** The stream's address (market, order, fill and account events); without one every input polls. */
  readonly events: { streamUrl: string | undefined }
  readonly account: VenueAccount
  /** Already linked (a fleet's warm standby: transports, clock offset, domain, instruments). */
  readonly link?: VenueLink | undefined
}

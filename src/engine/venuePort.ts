/**
 * The venue port: the engine's one swap point (issue 37). Everything the engine needs from a venue
 * crosses here, and the engine is the same for every adapter (venueAdapters.ts): the real venue over
 * HTTP, the embedded mock's exchange core (dry run, simulate on its stepped clock), the replay of a
 * dataset through that core (`simulate --data`), and the paper book on the live market.
 *
 * What crosses, by direction (the throttle sits in the engine's client, above every adapter, and
 * weighs each command from the same values whichever way it then goes):
 * - commands in: the client's batch commands (create, modify, cancel), cancel-all, the dead-man
 *   switch and the account settings (leverage, margin, cancel by client id). Their value is `TypedCommand` (perps/typedCommands.ts): the op the zod-checked inputs
 *   build (perps/signing/ops.ts), stamped with salt, ts and exp. The HTTP adapters sign that value
 *   with the engine's proxy key and send it as JSON; the in-process adapter hands the value itself
 *   to the exchange core (`TypedCommandTransport`), which answers with the body as a value: no
 *   signature, no JSON. The owner's commands (createProxy, withdraw) are signed on every adapter;
 * - events out: market (tickers, statistics, best bid/offer), order, fill and account (portfolio,
 *   withdrawals, notifications) pushes as one typed stream (`VenueEvent`, perps/stream/streamSource.ts:
 *   the push schemas' types), with the same reads over `commands` as the safety net. The bot's inputs
 *   take a `StreamSource`: the WebSocket pool (live, dry run) or, with `events.source`, the
 *   exchange core's publisher in this process (paper, simulate `--streams`: no socket, no JSON, the
 *   same channels, sequence numbers and gaps). Simulate without `--streams` polls the reads;
 * - the clock: the venue's base time, which the engine corrects by the venue's own clock.
 */
import type { VenueLink } from '../bot/startup/connect.ts'
import type { Clock } from '../clock.ts'
import type { HttpTransport } from '../http/transport.ts'
import type { OpenStreamSource } from '../perps/stream/streamSource.ts'
import type { TypedCommandTransport } from '../perps/typedCommands.ts'
import type { Secrets } from '../settings/schema.ts'

export type { OpenStreamSource, StreamSource, VenueEvent } from '../perps/stream/streamSource.ts'
export type { TypedCommand, TypedCommandTransport, TypedOp } from '../perps/typedCommands.ts'

/** Which venue: the real one, or one of the local books. */
export type VenueKind = 'live' | 'dry-run' | 'paper' | 'simulate' | 'replay'

/** How commands and reads reach the venue. */
export type VenueCommands =
  /** HTTP to an address (the real venue, or a local book on loopback). */
  | { via: 'http'; perpsUrl: string; catalogueUrl: string }
  /**
   * Calls into a local book in this process: no socket, ordered delivery (simulate, replay); the
   * proxy-signed commands typed when the perps transport takes them (`TypedCommandTransport`).
   */
  | {
      via: 'in-process'
      transports: { perps: TypedCommandTransport | HttpTransport; catalogue: HttpTransport }
    }
  /**
   * The paper book: the venue's commands and reads into a local book in this process (typed
   * commands, ordered delivery on wall time), the catalogue the real one over HTTP (it is public).
   */
  | { via: 'in-process-perps'; perps: TypedCommandTransport; catalogueUrl: string }

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
  /**
   * The events (market, order, fill and account pushes; `VenueEvent`): the stream's address, without
   * one every input polls; with `source`, the pushes come from a source in this process instead of
   * sockets (`StreamSource`, the exchange core's publisher; engine/inProcessStream.ts) and the
   * address is only its label.
   */
  readonly events: { streamUrl: string | undefined; source?: OpenStreamSource | undefined }
  readonly account: VenueAccount
  /** Already linked (a fleet's warm standby: transports, clock offset, domain, instruments). */
  readonly link?: VenueLink | undefined
}

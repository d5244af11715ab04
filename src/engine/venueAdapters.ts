/**
 * The adapters of the venue port: each names one venue for `startEngine` and nothing more. The
 * local books are started by their owners (the CLI's embedded mock and paper book, the simulator's
 * stepped assembly) and handed in as addresses, transports or stream sources; the engine never knows
 * which it has.
 */
import type { VenueLink } from '../bot/startup/connect.ts'
import type { Clock } from '../clock.ts'
import type { HttpTransport } from '../http/transport.ts'
import type { OpenStreamSource } from '../perps/stream/streamSource.ts'
import type { TypedCommandTransport } from '../perps/typedCommands.ts'
import type { Secrets } from '../settings/schema.ts'
import type { VenuePort } from './venuePort.ts'

/** The real venue over HTTP and WebSocket (`run --live`): the operator's keys, the system clock. */
export function httpVenue(o: {
  perpsUrl: string
  catalogueUrl: string
  streamUrl: string | undefined
  clock: Clock
  secrets: Secrets
  link?: VenueLink | undefined
}): VenuePort {
  return {
    kind: 'live',
    clock: o.clock,
    commands: { via: 'http', perpsUrl: o.perpsUrl, catalogueUrl: o.catalogueUrl },
    events: { streamUrl: o.streamUrl },
    account: { kind: 'keys', secrets: o.secrets },
    link: o.link,
  }
}

/** A local book on loopback: the embedded mock's exchange core (dry run), its own account and clock. */
export function loopbackMockVenue(o: {
  url: string
  streamUrl: string | undefined
  clock: Clock
  secrets: Secrets
}): VenuePort {
  return {
    kind: 'dry-run',
    clock: o.clock,
    commands: { via: 'http', perpsUrl: o.url, catalogueUrl: o.url },
    events: { streamUrl: o.streamUrl },
    account: { kind: 'self-provisioned', secrets: o.secrets },
  }
}

/**
 * The paper book (`run --paper`): the mock's exchange core in this process whose market is the
 * venue's public feed (src/paper/paperVenue.ts), reached as the simulator reaches its core — the
 * proxy-signed commands as typed values through an in-process transport, the pushes from the core's
 * publisher as values (`streamSource`), both on a delivery queue that empties itself on wall time —
 * with the paper account's local keys; the catalogue is the real (public) one over HTTP. No socket
 * and no JSON between the bot and its book; the venue sees only the paper book's public reads.
 */
export function paperVenue(o: {
  perps: TypedCommandTransport
  /** The book's stream in this process (engine/inProcessStream.ts); `streamUrl` is its label. */
  streamSource: OpenStreamSource
  streamUrl: string
  catalogueUrl: string
  clock: Clock
  secrets: Secrets
}): VenuePort {
  return {
    kind: 'paper',
    clock: o.clock,
    commands: { via: 'in-process-perps', perps: o.perps, catalogueUrl: o.catalogueUrl },
    events: { streamUrl: o.streamUrl, source: o.streamSource },
    account: { kind: 'local-keys', secrets: o.secrets },
  }
}

/**
 * The exchange core in this process (`simulate`, and `simulate --data`: the same core with its
 * market from a dataset): in-process transports with ordered delivery on the stepped clock; the
 * proxy-signed commands reach the core as typed values (no signature, no JSON) when the perps transport
 * takes them (src/sim/simulate/inProcessTransport.ts); with a stream source, the core's pushes reach
 * the engine as values too (engine/inProcessStream.ts), else every input polls.
 */
export function inProcessVenue(o: {
  transports: { perps: TypedCommandTransport | HttpTransport; catalogue: HttpTransport }
  streamUrl?: string | undefined
  /** The exchange core's stream in this process (engine/inProcessStream.ts); `streamUrl` is its label. */
  streamSource?: OpenStreamSource | undefined
  clock: Clock
  secrets: Secrets
  replay: boolean
}): VenuePort {
  return {
    kind: o.replay ? 'replay' : 'simulate',
    clock: o.clock,
    commands: { via: 'in-process', transports: o.transports },
    events: { streamUrl: o.streamUrl, source: o.streamSource },
    account: { kind: 'self-provisioned', secrets: o.secrets },
  }
}

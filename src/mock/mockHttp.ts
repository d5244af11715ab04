/**
 * The framework-free request/response shape the mock's handlers speak. The HTTP adapter turns a
 * node:http request into a `MockRequest` and writes the `MockResponse` back, so the exchange core and
 * its handlers are testable without sockets.
 */

import type { StampedCommand } from '../perps/signing/commandSigner.ts'
import type { PerpsOp } from '../perps/signing/ops.ts'
import type { TypedRead } from '../perps/typedReads.ts'

export interface MockRequest {
  method: string
  /** Path without query string, e.g. `/events/keyset`. */
  path: string
  query: URLSearchParams
  /** Lower-cased header names. */
  headers: Readonly<Record<string, string | undefined>>
  /** Parsed JSON body, or undefined when there was none. */
  body: unknown
  /** Identifies the caller for per-client rate limits (the remote address in the adapter). */
  clientId: string
  /**
   * A typed command from an in-process venue (perps/typedCommands.ts; `body` is its stamped op): the
   * signer is vouched for by the link, so nothing is parsed or recovered. Never set from a socket.
   */
  vouched?: VouchedCommand | undefined
}

/** A typed command as the mock gets it: the stamped op and the signer its in-process venue vouches for. */
export interface VouchedCommand {
  readonly signer: string
  readonly stamped: StampedCommand<PerpsOp>
}

export interface MockResponse {
  status: number
  headers?: Readonly<Record<string, string>> | undefined
  /** Serialized as JSON unless `raw` is set. */
  body?: unknown
  /** Sent verbatim (fault injection: malformed JSON). */
  raw?: string | undefined
  /**
   * `body` as the read's typed value, for a venue in this process (perps/typedReads.ts): set by the
   * reads whose schema is the identity on the core's answer; a fault's answer has none.
   */
  typed?: TypedRead | undefined
}

export type MockHandler = (req: MockRequest) => MockResponse | Promise<MockResponse>

export function json(status: number, body: unknown, headers?: Record<string, string>): MockResponse {
  return headers ? { status, body, headers } : { status, body }
}

/**
 * Commands as typed values (issue 37, the venue port's command half): the stamped op the signer would
 * sign (`StampedCommand<PerpsOp>`, the same builders and values as the signed body), handed to a venue
 * in this process that vouches for the signer itself: no signature, no JSON, answered with the body as
 * a value. The HTTP venue never has this capability; the client then signs and sends as always.
 *
 * Every proxy-signed op goes typed on such a venue (the trading commands, the dead-man switch and
 * the account settings); the owner-signed ones (createProxy, withdraw, deleteProxy) stay signed.
 */
import type { HttpRequest, HttpResponse, HttpTransport } from '../http/transport.ts'
import type { StampedCommand } from './signing/commandSigner.ts'
import type { PerpsOp } from './signing/ops.ts'

/** The ops an in-process venue takes typed: every proxy-signed op. */
export type TypedOp = PerpsOp

/** One typed command: the stamped op and the proxy that issued it (the venue vouches for the link). */
export interface TypedCommand {
  readonly signer: string
  readonly stamped: StampedCommand<TypedOp>
}

/**
 * A perps transport that also takes typed commands (the in-process venue). The answer is the
 * transport's, with the body as a value (`json`) instead of text; deadline, abort and delivery order
 * are the transport's own.
 */
export interface TypedCommandTransport extends HttpTransport {
  command(request: HttpRequest, command: TypedCommand): Promise<HttpResponse>
}

/** Whether `t` takes typed commands. */
export function takesTypedCommands(t: HttpTransport): t is TypedCommandTransport {
  return 'command' in t && typeof t.command === 'function'
}

/**
 * Reads answered as typed values (issue 36, the simulated day): a venue in this process (the mock's
 * exchange core behind the in-process transport) hands the answer of a read whose schema is the
 * identity on that venue's own output as the schema's output type, and the client takes it without
 * the parse. Only reads listed here, each because the parse of the core's answer returns an equal
 * value (same keys in the same order, same values): the core builds these answers fresh on every call
 * with the schemas' output types, every decimal written by `fromTicks` (canonical, so no spelling is
 * rewritten), no row dropped (test/sim/simulate/typedReads.integration.test.ts parses both ways on every answer of
 * seeded runs in several scenarios and compares). Everything else on the read's path is unchanged:
 * the gate, the mock's limiter and faults (a fault's answer carries no typed value), the delivery
 * order, the deadline, the body text written for its size and the body cap.
 *
 * Not typed: reads whose schemas rename or fill in (open orders' and fills' long names become the
 * domain's short ones, blank decimals read as zero), and every read from a socket.
 */
import type { HttpResponse } from '../http/transport.ts'
import type { Portfolio } from './schemas/account.ts'
import type { Ticker } from './schemas/tickers.ts'

/** A read's answer as the value its schema would return. */
export type TypedRead = { kind: 'getTickers'; value: Ticker[] } | { kind: 'getPortfolio'; value: Portfolio }

/** Answers of a venue in this process with their typed values (held as long as the answer is). */
const typedAnswers = new WeakMap<HttpResponse, TypedRead>()

/** Marks `res` as carrying `typed` (the in-process transport, for an answer with no fault). */
export function withTypedRead<R extends HttpResponse>(res: R, typed: TypedRead): R {
  typedAnswers.set(res, typed)
  return res
}

/** The tickers read's typed value, when the answer carries one. */
export function typedTickers(res: HttpResponse): Ticker[] | undefined {
  const t = typedAnswers.get(res)
  return t?.kind === 'getTickers' ? t.value : undefined
}

/** The portfolio read's typed value, when the answer carries one. */
export function typedPortfolio(res: HttpResponse): Portfolio | undefined {
  const t = typedAnswers.get(res)
  return t?.kind === 'getPortfolio' ? t.value : undefined
}

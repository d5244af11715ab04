/**
 * The stage of the perps client's request pipeline below the endpoint files and above signing and the
 * transport: client → gate (`admit`) → sign → send. The client asks for an admission and gets it back
 * as a value; nothing here calls into the client or its caller. The weight limiter (weightLimiter.ts)
 * is the gate; a fleet wraps it with the shared IP budget and the lease fence (src/fleet/).
 */
import type { EndpointKind, PerpsEndpoint, WeightInput } from '../weights.ts'

/**
 * Scheduling class of a request: risk reduction first, then reads, then quotes. `exit` is the stop
 * sequence's own commands (the exit policy's cancel-all, clearing the dead-man switch): a gate lets
 * them through at once, held by nothing local. `halt` is a halted instrument's cancels (and the read
 * they need): risk work locally, and in a fleet the only work that may use the shared budget's halt
 * reserve, which no other request is ever lent.
 */
export type RequestPriority = 'risk' | 'read' | 'quote' | 'exit' | 'halt'

/** One HTTP request as the gate sees it (each retry attempt of a read is a request of its own). */
export interface GatedRequest {
  endpoint: PerpsEndpoint
  kind: EndpointKind
  /** What the weights depend on (batch size, filters). */
  input: WeightInput
  /** Its weights, from the one table in perps/weights.ts. */
  requestWeight: number
  actionWeight: number
  /** The caller's class; undefined for ordinary work (reads, createProxy, applyReferral). */
  priority?: RequestPriority | undefined
  /** The call's signal: aborting it while the request waits for admission ends the wait. */
  signal?: AbortSignal | undefined
}

/**
 * One admitted request: its weight is held until `settle` (or handed back unsent by `release`).
 * Exactly one of `settle` and `release` is called, once.
 */
export interface Admission {
  /**
   * The request goes on the wire now (signed, if a command). May throw to refuse the send (a fleet's
   * lease lost while the request waited); the caller then calls `release`.
   */
  sending(): void
  /**
   * The request's outcome: no argument for an answer, else the error (a `RateLimitError` pauses).
   * A promise when the gate has more to do before the caller goes on (a fleet reports a 429 to Redis).
   */
  settle(error?: unknown): Promise<void> | undefined
  /** Nothing was sent: the weight goes back, unspent. */
  release(): void
}

/**
 * Admits every request the client sends. A gate may wait before admitting (a rate limiter) or refuse
 * by rejecting (the limiter stopped, a job it can never fit, an aborted signal, a lost lease).
 */
export interface RequestGate {
  admit(request: GatedRequest): Promise<Admission>
}

/** An admission that holds nothing (a gate that admits everything at once, a client without a gate). */
export const FREE_ADMISSION: Admission = Object.freeze({
  sending: () => undefined,
  settle: () => undefined,
  release: () => undefined,
})

/** A gate that admits everything at once (before a process has a local limiter to queue in). */
export const OPEN_GATE: RequestGate = Object.freeze({ admit: async () => FREE_ADMISSION })

/** Runs one send under an admission of `gate`: a tool's way to gate a request outside the perps client. */
export async function throughGate<T>(
  gate: RequestGate,
  request: GatedRequest,
  send: () => Promise<T>,
): Promise<T> {
  return sendAdmitted(await gate.admit(request), send)
}

/** Sends once under an admission and settles it with the outcome (or releases it if the send is refused). */
export async function sendAdmitted<T>(admission: Admission, send: () => Promise<T>): Promise<T> {
  try {
    admission.sending()
  } catch (e) {
    admission.release()
    throw e
  }
  let result: T
  try {
    result = await send()
  } catch (e) {
    await admission.settle(e)
    throw e
  }
  // Awaited only when the gate returns a promise: the limiter settles at once (one request's hot path).
  const settling = admission.settle()
  if (settling !== undefined) await settling
  return result
}

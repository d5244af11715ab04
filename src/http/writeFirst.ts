/**
 * Later turns of the event loop that let the requests already made be written first. undici writes a
 * request on an idle kept-alive socket one `setImmediate` after it is made (it first lets the socket
 * report a close: GHSA-35p6-xmwp-9g52), in the check phase, in the order the immediates were booked.
 * Work deferred "to a later turn" with its own `setImmediate` is often booked before the request it
 * leads to is made (a chunk of routed inputs books the next chunk, then its plans are signed and sent
 * in the microtasks after it), so it ran ahead of the write: at 1,000 instruments a chunk of actor
 * steps or paced timers held an order's write for 2-12 ms (issue 36, profiles of the slow moves).
 *
 * `laterTurn(writing)` runs `fn` on a later turn and, when a request made since is still waiting to be
 * written when that turn comes, on the turn after it (after the write). `writing` is the transport's
 * own report (`HttpTransport.writing`); a transport that writes at once (in process) never waits.
 */

/** Runs `fn` on a later turn of the event loop. */
export type LaterTurn = (fn: () => void) => void

export function laterTurn(
  writing: () => boolean,
  immediate: (fn: () => void) => void = (fn) => void setImmediate(fn),
): LaterTurn {
  return (fn) =>
    immediate(() => {
      if (writing()) immediate(fn)
      else fn()
    })
}

/**
 * A transport's pending-write flag: `made()` when a request is handed to the HTTP client; `writing()`
 * is true until the check phase after it (an immediate booked after the client's own write).
 */
export function pendingWrites(immediate: (fn: () => void) => void = (fn) => void setImmediate(fn)): {
  made(): void
  writing(): boolean
} {
  let waiting = false
  const written = (): void => {
    waiting = false
  }
  return {
    made() {
      if (waiting) return
      waiting = true
      immediate(written)
    },
    writing: () => waiting,
  }
}

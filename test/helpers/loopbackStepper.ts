/**
 * Steps a shared stepped `VirtualClock` for parties that talk over real loopback sockets in this
 * process (mock venues, paper venue, bots): wait until nothing is in flight, then jump to the next
 * due timer, and again. `settle` of src/sim/simulate/steppedRun.ts does this for the in-process
 * transport; over loopback, a request or a frame is on the wire where no timer or immediate shows it,
 * so "nothing in flight" also counts bytes: every loopback socket of this process is tracked from
 * both ends (node's `net.client.socket` and `net.server.socket` diagnostics channels), and a pair is
 * quiet when each end has read all its peer wrote. An HTTP request is in flight from its server's
 * `request` (the `http.server.request.start` channel) to its response's `finish` or `close`, and any
 * pending libuv request (a connect, a file write) counts too. Time moves only when all of that is
 * quiet: the parties see no network latency in virtual time, and the run's length is counted in timer
 * steps, not wall seconds.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import type { ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { onTestFinished } from 'vitest'
import type { VirtualClock } from '../../src/mock/virtualClock.ts'

/** Long-lived handles that say nothing about work in flight (sockets are counted by bytes instead). */
const QUIET_HANDLES = new Set([
  'TCPSocketWrap',
  'TCPServerWrap',
  'PipeWrap',
  'TTYWrap',
  'ProcessWrap',
  'SignalWrap',
  'FSEventWrap',
  'StatWatcher',
  'MessagePort',
  'Timeout',
  'Immediate',
])

/** Event-loop turns one settle may take before it gives up (something never quiets). */
const MAX_TURNS = 1_000_000

export interface LoopbackStepper {
  /** Waits until nothing is in flight and no immediate is pending. */
  settle(): Promise<void>
  /** Runs the clock to `endMs` in timer steps; returns the number of steps. */
  runTo(endMs: number): Promise<number>
  /** Steps until `cond` holds (checked after every step), at most to `maxMs` ahead; false if it never did. */
  until(cond: () => boolean, maxMs: number): Promise<boolean>
  /**
   * Steps while `work` runs (a start-up that waits for pushes), at most `maxMs` of virtual time;
   * returns its result.
   */
  during<T>(work: Promise<T>, maxMs?: number): Promise<T>
  /** Stops tracking sockets (also done when the test that made it finishes). */
  close(): void
}

export function loopbackStepper(clock: VirtualClock): LoopbackStepper {
  if (clock.mode !== 'stepped') throw new Error('loopbackStepper needs a stepped clock')
  const sockets = new Set<Socket>()
  let requests = 0
  let requestsSeen = 0
  const onSocket = (m: unknown): void => {
    const s = (m as { socket: Socket }).socket
    sockets.add(s)
    s.once('close', () => sockets.delete(s))
  }
  const onRequest = (m: unknown): void => {
    requests += 1
    requestsSeen += 1
    // Answered, or its connection gone before the answer (then nobody is working on it either).
    let open = true
    const end = (): void => {
      if (open) requests -= 1
      open = false
    }
    const res = (m as { response: ServerResponse }).response
    res.once('finish', end)
    res.once('close', end)
  }
  subscribe('net.client.socket', onSocket)
  subscribe('net.server.socket', onSocket)
  subscribe('http.server.request.start', onRequest)
  const close = (): void => {
    unsubscribe('net.client.socket', onSocket)
    unsubscribe('net.server.socket', onSocket)
    unsubscribe('http.server.request.start', onRequest)
    sockets.clear()
  }
  // A test that fails before its own `close` leaves no subscription behind in a shared fork.
  onTestFinished(close)

  const key = (port: number | undefined, peer: number | undefined): string => `${port}>${peer}`
  /** Ends that have met their peer: once the peer is gone, what is left unread is nobody's work. */
  const paired = new WeakSet<Socket>()
  /** A byte one end wrote that its peer has not read, or a connection not accepted yet. */
  const wireBusy = (): boolean => {
    const byEnds = new Map<string, Socket>()
    for (const s of sockets) if (!s.destroyed) byEnds.set(key(s.localPort, s.remotePort), s)
    for (const s of sockets) {
      if (s.destroyed) continue
      if (s.connecting) return true
      const peer = byEnds.get(key(s.remotePort, s.localPort))
      if (peer === undefined) {
        if (!paired.has(s)) return true
        continue
      }
      paired.add(s)
      if (s.bytesWritten !== peer.bytesRead) return true
    }
    return false
  }
  /** Changes whenever anything crosses a socket or a request starts or ends. */
  const progress = (): number => {
    let n = requestsSeen
    for (const s of sockets) n += s.bytesRead + s.bytesWritten
    return n
  }
  const state = (): Promise<'idle' | 'busy' | 'timeout'> =>
    new Promise((resolve) => {
      // Inside an immediate callback the microtask queue is empty.
      setImmediate(() => {
        const pending = process.getActiveResourcesInfo()
        if (pending.includes('Immediate') || requests > 0 || wireBusy()) resolve('busy')
        else if (pending.some((r) => !QUIET_HANDLES.has(r))) resolve('busy')
        else resolve(pending.includes('Timeout') ? 'timeout' : 'idle')
      })
    })

  const settle = async (): Promise<void> => {
    for (let i = 0; i < MAX_TURNS; i++) {
      const s = await state()
      if (s === 'idle') return
      if (s === 'timeout') {
        // A wall-clock timer (a library's setTimeout(0) step, or a long keep-alive): one timer turn
        // lets every timer due by now fire (ours, set later, fires after them); if nothing moved,
        // what is left is a long timer that is no part of this step.
        const before = progress()
        await new Promise<void>((resolve) => setTimeout(resolve, 1))
        if ((await state()) !== 'busy' && progress() === before) return
      }
    }
    throw new Error(`loopback parties did not quiet within ${MAX_TURNS} event-loop turns`)
  }
  const step = async (endMs: number): Promise<void> => {
    const next = clock.nextDue()
    const to = next === undefined || next > endMs ? endMs : Math.max(next, clock.now())
    clock.set(to)
    await settle()
  }
  return {
    settle,
    async runTo(endMs) {
      let steps = 0
      await settle()
      while (clock.now() < endMs) {
        await step(endMs)
        steps += 1
      }
      return steps
    },
    async until(cond, maxMs) {
      const end = clock.now() + maxMs
      await settle()
      while (!cond()) {
        if (clock.now() >= end) return false
        await step(end)
      }
      return true
    },
    async during(work, maxMs = 600_000) {
      let done = false
      const end = clock.now() + maxMs
      const watched = work.finally(() => {
        done = true
      })
      // Rejections are the caller's, through `watched`; the loop only stops.
      watched.catch(() => undefined)
      await settle()
      while (!done && clock.now() < end) await step(end)
      return watched
    },
    close,
  }
}

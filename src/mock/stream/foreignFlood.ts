/**
 * The `foreignOrders` stream fault (streamFaults.ts): another client's order changes on every account's
 * `orders` channel, `perSecond` a second of the mock's clock in bursts every `everyMs` (stopped when the
 * fault is cleared). Pushed as the venue pushes orders (the sessions' sequence numbers), not rolled.
 */
import type { Duplex } from 'node:stream'
import type { Clock, TimerId } from '../../clock.ts'
import type { PerpsExchange } from '../perps/exchange.ts'
import { corkSockets } from './corkedSockets.ts'
import { FOREIGN_FLOOD_FIRST_OID, foreignFloodCoid, type StreamFaultConfig } from './streamFaults.ts'
import type { StreamSession } from './streamSession.ts'

export interface ForeignFlood {
  /** Starts the flood when its fault is set (checked on every tick). */
  schedule(): void
  stop(): void
}

export function createForeignFlood(o: {
  clock: Clock
  /** Push `ts` and the orders' times. */
  serverClock: Clock
  exchange: Pick<PerpsExchange, 'bbo'>
  config: () => StreamFaultConfig['foreignOrders']
  /** False once the server is closed. */
  running: () => boolean
  sessions: () => ReadonlySet<StreamSession>
  socketOf: (s: StreamSession) => Duplex | undefined
  /** One foreign push sent (the fault's count). */
  pushed: () => void
}): ForeignFlood {
  let timer: TimerId | undefined
  /** The flood's pushes so far (each a new order id; every third a cancel of the one before). */
  let seq = 0
  /** Pushes owed to the flood's rate not yet sent (the rate times the time since the last burst). */
  let owed = 0

  const burst = (): void => {
    timer = undefined
    const config = o.config()
    const sessions = o.sessions()
    if (!o.running() || config === undefined || sessions.size === 0) return
    const everyMs = config.everyMs ?? 10
    owed += (config.perSecond * everyMs) / 1_000
    const n = Math.floor(owed)
    owed -= n
    const now = o.serverClock.now()
    const quotes = o.exchange.bbo(undefined)
    const targets = [...sessions].filter((s) => s.owner !== undefined && s.subscriptions.has('orders'))
    const corked = corkSockets(targets.map(o.socketOf))
    try {
      for (let i = 0; i < n && quotes.length > 0; i++) {
        seq += 1
        const q = quotes[seq % quotes.length]
        if (q === undefined) continue
        const gone = seq % 3 === 0
        const oid = FOREIGN_FLOOD_FIRST_OID + (gone ? seq - 1 : seq)
        const buy = oid % 2 === 0
        const json = JSON.stringify({
          oid,
          iid: q.iid,
          buy,
          // At the touch on its own side: it rests, never crosses.
          p: buy ? q.bp : q.ap,
          qty: '0.01',
          tif: 'gtc',
          po: true,
          ro: false,
          rest: gone ? '0' : '0.01',
          fill: '0',
          cts: now,
          uts: now,
          status: gone ? 'cancelled' : 'open',
          coid: foreignFloodCoid(oid - FOREIGN_FLOOD_FIRST_OID),
        })
        for (const s of targets) s.push('orders', json, now)
        o.pushed()
      }
    } finally {
      corked.release()
    }
    timer = o.clock.setTimeout(burst, everyMs)
  }

  return {
    schedule() {
      if (!o.running() || timer !== undefined) return
      const config = o.config()
      if (config === undefined) return
      timer = o.clock.setTimeout(burst, config.everyMs ?? 10)
    },
    stop() {
      if (timer !== undefined) o.clock.clearTimeout(timer)
      timer = undefined
    },
  }
}

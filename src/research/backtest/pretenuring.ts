/**
 * The fast engine runs with V8's allocation-site pretenuring off. V8 moves an allocation site's
 * objects straight to the old generation once most of them outlive a young collection; in the
 * backtest it does so for sites of xstate's transition (the arguments each action is resolved with,
 * which hold the new context), so every transition then leaves an old object pointing at young ones,
 * and each scavenge keeps those alive and promotes them (the context, its orders and plan) until a
 * full collection: over 2 virtual hours 110 MiB survived young collections and 95 MiB were promoted,
 * against 70 and 57 MiB with pretenuring off (the hand-written engine: 78 and 62, either way). V8
 * reads the flag when it collects, so it applies from the next collection; it is restored when the
 * last backtest running in this thread ends. A pretenuring flag given to node itself wins.
 */
import { setFlagsFromString } from 'node:v8'

const FLAG = 'allocation-site-pretenuring'

let running = 0

/** Where the flag is read and set: node's own by default (a test passes its own). */
export interface PretenuringHost {
  execArgv: readonly string[]
  setFlags(flags: string): void
}

const NODE: PretenuringHost = { execArgv: process.execArgv, setFlags: setFlagsFromString }

/** Runs `body` with pretenuring off (see above). */
export async function withoutPretenuring<T>(
  body: () => Promise<T>,
  host: PretenuringHost = NODE,
): Promise<T> {
  if (host.execArgv.some((a) => a === `--${FLAG}` || a === `--no-${FLAG}`)) return body()
  if (running++ === 0) host.setFlags(`--no-${FLAG}`)
  try {
    return await body()
  } finally {
    if (--running === 0) host.setFlags(`--${FLAG}`)
  }
}

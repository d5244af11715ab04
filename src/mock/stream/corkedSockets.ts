/**
 * The upgraded sockets of the sessions a burst of pushes goes to, corked while it is written: one
 * write a socket, not one per push. `flush` sends what is written so far (a channel kind goes out as
 * soon as it is written: the tickers do not wait for the rest); `release` uncorks for good.
 */
import type { Duplex } from 'node:stream'

export interface CorkedSockets {
  flush(): void
  release(): void
}

export function corkSockets(sockets: Iterable<Duplex | undefined>): CorkedSockets {
  const corked: Duplex[] = []
  for (const d of sockets) if (d !== undefined) corked.push(d)
  for (const d of corked) d.cork()
  return {
    flush() {
      for (const d of corked) {
        d.uncork()
        d.cork()
      }
    },
    release() {
      for (const d of corked) d.uncork()
      corked.length = 0
    },
  }
}

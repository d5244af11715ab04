/**
 * The tests' stand-in for the venue, on loopback: it records every order that reaches it, in
 * arrival order, and keeps open orders per account. Fencing check: it refuses (and records) an
 * order whose epoch is below the highest epoch it has seen for the account, which a real venue
 * cannot do; the tests assert that no such order even arrives.
 */
import { createServer, type Server } from 'node:http'
import { parseClientOrderId } from '../../src/perps/orderTag.ts'

export interface VenueOrder {
  readonly account: string
  readonly coid: string
  readonly epoch: number
  readonly accepted: boolean
  readonly at: number
}

export interface FencingVenue {
  readonly url: string
  readonly orders: VenueOrder[]
  open(account: string): string[]
  close(): Promise<void>
}

export async function startFencingVenue(): Promise<FencingVenue> {
  const orders: VenueOrder[] = []
  const open = new Map<string, Set<string>>()
  const maxEpoch = new Map<string, number>()
  const openOf = (a: string): Set<string> => {
    let s = open.get(a)
    if (s === undefined) {
      s = new Set()
      open.set(a, s)
    }
    return s
  }
  const dropWhere = (account: string, keep: (epoch: number) => boolean): void => {
    const s = openOf(account)
    for (const coid of [...s]) if (!keep(parseClientOrderId(coid)?.epoch ?? 0)) s.delete(coid)
  }
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (d: Buffer) => {
      body += d.toString()
    })
    req.on('end', () => {
      const msg = JSON.parse(body || '{}') as { account: string; coid?: string; epoch?: number }
      if (req.url === '/order' && msg.coid !== undefined) {
        const epoch = parseClientOrderId(msg.coid)?.epoch ?? -1
        const accepted = epoch >= (maxEpoch.get(msg.account) ?? 0)
        if (accepted) {
          maxEpoch.set(msg.account, epoch)
          openOf(msg.account).add(msg.coid)
        }
        orders.push({ account: msg.account, coid: msg.coid, epoch, accepted, at: Date.now() })
        res.statusCode = accepted ? 200 : 409
      } else if (req.url === '/cancel-below' && msg.epoch !== undefined) {
        const e = msg.epoch
        dropWhere(msg.account, (epoch) => epoch >= e)
      } else if (req.url === '/cancel-epoch' && msg.epoch !== undefined) {
        const e = msg.epoch
        dropWhere(msg.account, (epoch) => epoch !== e)
      }
      res.end()
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  const addr = server.address()
  const port = typeof addr === 'object' && addr !== null ? addr.port : 0
  return {
    url: `http://127.0.0.1:${port}`,
    orders,
    open: (a) => [...openOf(a)],
    close: () =>
      new Promise((r) => {
        server.closeAllConnections()
        server.close(() => r())
      }),
  }
}

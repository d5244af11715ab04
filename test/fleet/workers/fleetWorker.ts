/**
 * A fleet process for the lease tests: claims the first free account of its list (standby while
 * none is free), then, while `canWrite()`, sends an order every `orderEveryMs` to the test's venue
 * (client order ids carry the lease epoch). On taking an account it cancels older epochs' orders
 * (a zombie's); on losing it, it cancels its own and goes back to standby. Prints
 * `HELD <account> <epoch> <ms>`, `STANDBY`, `LOST <account> <epoch> <reason> <ms>`.
 */

import { claimFirstFree } from '../../../src/fleet/accountClaim.ts'
import { AccountLease } from '../../../src/fleet/accountLease.ts'
import { connectFleetRedis } from '../../../src/fleet/redisConnection.ts'
import { createClientOrderIds, orderTagFor } from '../../../src/perps/orderTag.ts'

interface Args {
  url: string
  accounts: string[]
  holderId: string
  ttlMs: number
  renewEveryMs: number
  marginMs: number
  pollMs: number
  venueUrl?: string
  orderEveryMs: number
}
const args = JSON.parse(process.argv[2] ?? '{}') as Args
const redis = connectFleetRedis(args.url, { reconnectMs: 50, commandTimeoutMs: 300 })
const tag = orderTagFor('fleet-test')

async function venue(path: string, body: unknown): Promise<void> {
  if (args.venueUrl === undefined) return
  await fetch(`${args.venueUrl}${path}`, { method: 'POST', body: JSON.stringify(body) }).catch(
    () => undefined,
  )
}

async function hold(lease: AccountLease): Promise<void> {
  const epoch = lease.epoch ?? 0
  process.stdout.write(`HELD ${lease.account} ${epoch} ${Date.now()}\n`)
  await venue('/cancel-below', { account: lease.account, epoch })
  const ids = createClientOrderIds({ tag, epoch, startMs: Date.now() })
  await new Promise<void>((resolve) => {
    const off = lease.onChange((s) => {
      if (s.state !== 'lost') return
      off()
      clearInterval(timer)
      process.stdout.write(`LOST ${lease.account} ${s.epoch} ${s.reason} ${Date.now()}\n`)
      void venue('/cancel-epoch', { account: lease.account, epoch: s.epoch }).then(resolve)
    })
    const timer = setInterval(() => {
      // The check right before the send: a resumed zombie finds its deadline past and sends nothing.
      if (lease.canWrite()) void venue('/order', { account: lease.account, coid: ids.next() })
    }, args.orderEveryMs)
  })
}

async function main(): Promise<void> {
  let announced = false
  for (;;) {
    const lease = await claimFirstFree({
      client: redis,
      accounts: args.accounts,
      pollMs: args.pollMs,
      retryMs: 50,
      lease: (account) =>
        new AccountLease({
          client: redis,
          account,
          holderId: args.holderId,
          ttlMs: args.ttlMs,
          renewEveryMs: args.renewEveryMs,
          marginMs: args.marginMs,
        }),
      onStandby: () => {
        if (announced) return
        announced = true
        process.stdout.write('STANDBY\n')
      },
    })
    announced = false
    await hold(lease)
  }
}
process.stdout.write('ready\n')
process.stdin.on('end', () => process.exit(0))
process.stdin.resume()
void main()

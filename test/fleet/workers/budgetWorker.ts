/**
 * A fleet process for the budget tests: hammers the shared budget with random weights until its
 * time is up, printing each grant (`G <redis µs> <weight>`) and finally its state (`S <json>`).
 * Starts on a `go` line on stdin so every worker begins together.
 */
import { createInterface } from 'node:readline'
import { connectFleetRedis } from '../../../src/fleet/redisConnection.ts'
import { createSharedBudget } from '../../../src/fleet/sharedBudget.ts'

interface Args {
  url: string
  egress: string
  budget: number
  windowMs: number
  durationMs: number
  maxWeight: number
  seed: number
}
const args = JSON.parse(process.argv[2] ?? '{}') as Args
const redis = connectFleetRedis(args.url, { reconnectMs: 50, commandTimeoutMs: 500 })
const budget = createSharedBudget({
  client: redis,
  egressId: args.egress,
  budget: args.budget,
  windowMs: args.windowMs,
  riskReserve: 0,
  retryMs: 50,
  graceMs: 400,
  // A loaded machine can hold a worker past two windows around the restart; never give up here.
  maxWaitMs: 20_000,
})
let seed = args.seed
const nextWeight = (): number => {
  seed = (seed * 1103515245 + 12345) % 2147483648
  return 1 + (seed % args.maxWeight)
}

async function main(): Promise<void> {
  const lines = createInterface({ input: process.stdin })
  await new Promise<void>((resolve) => lines.once('line', () => resolve()))
  const end = performance.now() + args.durationMs
  const out: string[] = []
  while (performance.now() < end) {
    const g = await budget.acquire(nextWeight(), 'read')
    out.push(`G ${g.atUs} ${g.weight}`)
    if (out.length >= 64) process.stdout.write(`${out.splice(0).join('\n')}\n`)
  }
  out.push(`S ${JSON.stringify(budget.state())}`)
  process.stdout.write(`${out.join('\n')}\n`)
  budget.stop()
  redis.disconnect()
  lines.close()
}
process.stdout.write('ready\n')
void main()

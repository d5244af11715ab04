/**
 * Real `perpbot run --live --fleet` processes against one loopback mock that records the request
 * weight of every request *arriving* on its single IP (what the venue counts), for the fleet's
 * process tests and `bench/fleetRun.ts`.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseClientOrderId } from '../../src/perps/orderTag.ts'
import { endpointFor, PERPS_WEIGHTS } from '../../src/perps/weights.ts'
import { type LoopbackMock, startLoopbackMock } from '../../src/sim/botOnMock.ts'
import { registerMockProxy } from '../helpers/mockAccount.ts'
import { perpbotNodeArgs } from '../helpers/perpbotProcess.ts'

export interface Arrival {
  readonly endpoint: string
  readonly at: number
  readonly weight: number
  /** The proxy address (lower case) a signed request named; '' for public reads. */
  readonly proxy: string
  readonly coids: readonly string[]
}

/** An order the mock created or changed (signed commands name no proxy in a header: the owner tells). */
export interface OrderEvent {
  readonly at: number
  readonly account: string
  readonly oid: number
  readonly status: string
  readonly epoch: number | undefined
}

export interface CountingMock {
  readonly loop: LoopbackMock
  readonly arrivals: Arrival[]
  readonly orders: OrderEvent[]
  /** Registers one proxy per account and writes its two key files into `dir`; account → proxy (lower case). */
  accounts(names: readonly string[], dir: string): Promise<Map<string, string>>
  /** Whether `account` placed or repriced an order after `t` (a new order id, or a new price). */
  tradedAfter(account: string, t: number): boolean
  close(): Promise<void>
}

export async function startCountingMock(seed = 5): Promise<CountingMock> {
  const arrivals: Arrival[] = []
  const loop = await startLoopbackMock({
    mock: { seed, scenario: 'calm', clock: 'real', catalogue: { eventCount: 20 }, rateLimits: false },
    onRequest: (req) => {
      const ep = endpointFor(req.method, req.path)
      if (ep === undefined) return
      const body: unknown = req.body
      const op = typeof body === 'object' && body !== null && 'op' in body ? body.op : undefined
      const rawArgs = typeof op === 'object' && op !== null && 'args' in op ? op.args : undefined
      const args: unknown[] = Array.isArray(rawArgs) ? rawArgs : []
      const q = (k: string): number | undefined => (req.query.has(k) ? Number(req.query.get(k)) : undefined)
      arrivals.push({
        endpoint: ep,
        at: Date.now(),
        weight: PERPS_WEIGHTS[ep].request({
          n: args.length || undefined,
          instrumentId: q('instrument_id'),
          orderId: q('order_id'),
        }),
        proxy: (req.headers['polymarket-proxy'] ?? '').toLowerCase(),
        coids:
          ep === 'createOrders'
            ? args.flatMap((a) =>
                typeof a === 'object' && a !== null && 'c' in a && typeof a.c === 'string' ? [a.c] : [],
              )
            : [],
      })
    },
  })
  const orders: OrderEvent[] = []
  const accountOf = new Map<string, string>()
  const priceOf = new Map<number, string>()
  const traded: { at: number; account: string }[] = []
  loop.mock.exchange.onOrderChange((owner, oid, order) => {
    const o = order()
    const account = accountOf.get(owner.toLowerCase()) ?? owner
    const at = Date.now()
    orders.push({ at, account, oid, status: o.status, epoch: parseClientOrderId(o.coid)?.epoch })
    if (priceOf.get(oid) !== o.p) {
      priceOf.set(oid, o.p)
      traded.push({ at, account })
    }
  })
  return {
    loop,
    arrivals,
    orders,
    tradedAfter: (account, t) => traded.some((c) => c.account === account && c.at > t),
    async accounts(names, dir) {
      mkdirSync(dir, { recursive: true })
      const proxies = new Map<string, string>()
      for (const a of names) {
        const acct = await registerMockProxy(loop.server.url, a)
        writeFileSync(join(dir, `${a}.proxy-private-key`), acct.key)
        writeFileSync(join(dir, `${a}.proxy-secret`), acct.credentials.secret)
        proxies.set(a, acct.credentials.proxy.toLowerCase())
        accountOf.set(acct.owner.toLowerCase(), a)
      }
      return proxies
    },
    close: () => loop.close(),
  }
}

/** The most weight that arrived inside any window ending at an arrival in [from, to]. */
export function maxWindowWeight(
  arrivals: readonly { readonly at: number; readonly weight: number }[],
  windowMs: number,
  from = 0,
  to = Number.POSITIVE_INFINITY,
): number {
  const sorted = arrivals.filter((a) => a.at >= from && a.at <= to).sort((a, b) => a.at - b.at)
  let max = 0
  let sum = 0
  let lo = 0
  for (const a of sorted) {
    sum += a.weight
    while ((sorted[lo]?.at ?? a.at) <= a.at - windowMs) sum -= sorted[lo++]?.weight ?? 0
    max = Math.max(max, sum)
  }
  return max
}

/** Every client order id that arrived, with its epoch. */
export function ordersOf(
  arrivals: readonly Arrival[],
): { at: number; proxy: string; epoch: number | undefined }[] {
  return arrivals.flatMap((a) =>
    a.coids.map((c) => ({ at: a.at, proxy: a.proxy, epoch: parseClientOrderId(c)?.epoch })),
  )
}

export interface FleetBot {
  readonly name: string
  readonly proc: ChildProcess
  readonly lines: string[]
  /** Resolves with the first line matching (rejects after `ms`). */
  waitFor(pattern: RegExp, ms: number): Promise<string>
  /** The bot's ops URL once it runs. */
  opsUrl(): string | undefined
  exited(ms: number): Promise<number | null>
}

export interface FleetRig {
  readonly dir: string
  readonly secretsDir: string
  /** `opsPort`: the ops port in the bot's config file (no `--ops-port` flag); default: the flag, 0. */
  start(name: string, env: Record<string, string>, o?: { opsPort?: number | undefined }): FleetBot
  /** Kills every bot still running and removes the directory. */
  close(): void
}

/** Where the bots find the mock (a `CountingMock`, or one running in its own process). */
export interface MockEndpoints {
  readonly loop: { readonly server: { readonly url: string }; readonly streamUrl: string | undefined }
}

export function fleetRig(o: {
  mock: MockEndpoints
  redisUrl: string
  env: Record<string, string>
}): FleetRig {
  const dir = mkdtempSync(join(tmpdir(), 'perpbot-fleet-bots-'))
  const secretsDir = join(dir, 'secrets')
  const bots: FleetBot[] = []
  return {
    dir,
    secretsDir,
    start(name, env, opts) {
      const overlay = join(dir, `${name}.json`)
      const ops = {
        stateDir: join(dir, `${name}-state`),
        ...(opts?.opsPort === undefined ? {} : { port: opts.opsPort }),
      }
      writeFileSync(overlay, JSON.stringify({ mode: 'live', ops }))
      const args = perpbotNodeArgs(['run', '--live', '--fleet', '--config', overlay])
      if (opts?.opsPort === undefined) args.push('--ops-port', '0')
      const proc = spawn(process.execPath, args, {
        env: {
          PATH: process.env.PATH ?? '',
          HOSTNAME: name,
          PERPS_URL: o.mock.loop.server.url,
          PERPS_WS_URL: o.mock.loop.streamUrl,
          CATALOGUE_URL: o.mock.loop.server.url,
          FLEET_REDIS_URL: o.redisUrl,
          FLEET_SECRETS_DIR: secretsDir,
          ...o.env,
          ...env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      const lines: string[] = []
      const waiters: { pattern: RegExp; resolve: (l: string) => void }[] = []
      let buf = ''
      let err = ''
      proc.stdout?.on('data', (d: Buffer) => {
        buf += d.toString()
        for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
          const line = buf.slice(0, i)
          buf = buf.slice(i + 1)
          lines.push(line)
          for (const w of [...waiters])
            if (w.pattern.test(line)) {
              waiters.splice(waiters.indexOf(w), 1)
              w.resolve(line)
            }
        }
      })
      proc.stderr?.on('data', (d: Buffer) => {
        if (err.length < 4_000) err += d.toString()
      })
      const exit = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)))
      const bot: FleetBot = {
        name,
        proc,
        lines,
        waitFor(pattern, ms) {
          const hit = lines.find((l) => pattern.test(l))
          if (hit !== undefined) return Promise.resolve(hit)
          return new Promise((resolve, reject) => {
            const t = setTimeout(() => {
              const tail = lines.slice(-5).join('\n')
              reject(new Error(`${name} printed no ${pattern} within ${ms} ms; last lines:\n${tail}\n${err}`))
            }, ms)
            waiters.push({
              pattern,
              resolve: (l) => {
                clearTimeout(t)
                resolve(l)
              },
            })
          })
        },
        opsUrl() {
          const line = lines.find((l) => l.includes('perpbot live running'))
          return line === undefined ? undefined : /"ops":"([^"]+)"/.exec(line)?.[1]
        },
        async exited(ms) {
          const t = setTimeout(() => proc.kill('SIGKILL'), ms)
          const code = await exit
          clearTimeout(t)
          return code
        },
      }
      bots.push(bot)
      return bot
    },
    close() {
      for (const b of bots) if (b.proc.exitCode === null) b.proc.kill('SIGKILL')
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** A gauge's value from a Prometheus text body (the first series of that name). */
export function gaugeOf(metrics: string, name: string): number | undefined {
  const line = metrics.split('\n').find((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1))
}

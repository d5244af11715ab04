/** Shared fixtures of the mock-exchange tests: a manual clock, the public dev keys, signed requests. */
import { privateKeyToAccount } from 'viem/accounts'
import type { MockHandler, MockResponse } from '../../../src/mock/mockHttp.ts'
import { createPerpsExchange, type PerpsExchange } from '../../../src/mock/perps/exchange.ts'
import { createPerpsHandler } from '../../../src/mock/perps/handler.ts'
import type { PerpsExchangeOptions } from '../../../src/mock/perps/options.ts'
import { CommandSigner } from '../../../src/perps/signing/commandSigner.ts'
import type { SignedOp } from '../../../src/perps/signing/typedData.ts'
import { seededRandom } from '../../../src/random.ts'

/** Hardhat/Anvil public test keys (protocol-notes a.4). Never fund them. */
export const OWNER_PK = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
export const OWNER = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
export const PROXY_PK = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'
export const PROXY = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
/** Third Anvil key, for a second proxy or a stranger. */
export const OTHER_PK = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a'
export const OTHER = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'

export const START = 1_767_225_600_000

export interface ManualClock {
  now(): number
  setTimeout(fn: () => void, ms: number): unknown
  clearTimeout(id: unknown): void
  advance(ms: number): void
  set(t: number): void
}

export function manualClock(start = START): ManualClock {
  let t = start
  return {
    now: () => t,
    setTimeout: () => undefined,
    clearTimeout: () => undefined,
    advance: (ms) => {
      t += ms
    },
    set: (x) => {
      t = x
    },
  }
}

export const viemOwner = privateKeyToAccount(OWNER_PK)
export const viemProxy = privateKeyToAccount(PROXY_PK)

export interface Rig {
  ex: PerpsExchange
  handler: MockHandler
  clock: ManualClock
  owner: CommandSigner
  proxy: CommandSigner
  headers: Record<string, string>
  secret: string
  call(method: string, path: string, init?: CallInit): Promise<MockResponse>
  /** Signs a built op with the proxy key now (fresh salt) and sends it, with `exp` set on the body if given. */
  send(
    method: string,
    path: string,
    built: { op: unknown; signedOp: SignedOp },
    opts?: { exp?: number },
  ): Promise<MockResponse>
}

export interface CallInit {
  body?: unknown
  query?: Record<string, string>
  headers?: Record<string, string>
}

export function call(
  handler: MockHandler,
  method: string,
  path: string,
  init: CallInit = {},
): Promise<MockResponse> {
  const headers: Record<string, string> = {}
  for (const [k, v] of Object.entries(init.headers ?? {})) headers[k.toLowerCase()] = v
  return Promise.resolve(
    handler({
      method,
      path,
      query: new URLSearchParams(init.query ?? {}),
      headers,
      body: init.body,
      clientId: '127.0.0.1',
    }),
  )
}

/** An exchange (small history by default for speed), its handler, and a registered proxy. */
export async function rig(options: Partial<PerpsExchangeOptions> = {}): Promise<Rig> {
  const clock = manualClock()
  const ex = createPerpsExchange({ clock, seed: 7, historyMinutes: 60, ...options })
  const handler = createPerpsHandler(ex)
  const owner = new CommandSigner({ privateKey: OWNER_PK, clock, salts: seededRandom(11) })
  const proxy = new CommandSigner({ privateKey: PROXY_PK, clock, salts: seededRandom(12) })
  const body = await owner.signCreateProxy({ proxy: PROXY, expiry: START + 7 * 86_400_000, label: 'bot' })
  const res = await call(handler, 'POST', '/v1/account/proxy', { body })
  if (res.status !== 200) throw new Error(`createProxy failed: ${JSON.stringify(res.body)}`)
  const secret = (res.body as { secret: string }).secret
  const headers = { 'POLYMARKET-PROXY': PROXY, 'POLYMARKET-SECRET': secret }
  return {
    ex,
    handler,
    clock,
    owner,
    proxy,
    headers,
    secret,
    call: (method, path, init = {}) =>
      call(handler, method, path, { ...init, headers: { ...headers, ...init.headers } }),
    send: async (method, path, built, opts = {}) => {
      // `exp` is not signed; setting it on the body lets tests send values the signer would refuse.
      const stamp = proxy.stamp()
      const sig = await proxy.signOp(built.signedOp, stamp)
      const cmd = { op: built.op, sig, ...stamp }
      return call(handler, method, path, { body: opts.exp === undefined ? cmd : { ...cmd, exp: opts.exp } })
    },
  }
}

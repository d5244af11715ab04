/**
 * Parity with the official client, @polymarket/client 0.2.0 (a devDependency; it needs Node >= 24).
 * Its op signer (`signPerpsOp` in src/websockets/perps/signing.ts) is not exported: the package
 * `exports` map only opens `.`, `./node`, `./actions`, `./ethers-v5`, `./privy` and `./viem`. So we
 * drive its public API (createSecureClient -> openPerpsSession -> postOrders/cancelOrders/...)
 * against a loopback REST + WebSocket server on 127.0.0.1, capture exactly what it sends, and
 * check that our builders and signer produce the same body op and a byte-identical signature for
 * the same salt and ts. modifyOrders cannot be compared: the official client has no such op.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { http, recoverAddress } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Clock } from '../../../src/clock.ts'
import { type CommandSigner, createCommandSigner } from '../../../src/perps/signing/commandSigner.ts'
import { DEFAULT_PERPS_DOMAIN } from '../../../src/perps/signing/domain.ts'
import {
  buildCancelAll,
  buildCancelOrders,
  buildCancelOrdersCoid,
  buildCreateOrders,
  buildUpdateLeverage,
} from '../../../src/perps/signing/ops.ts'
import { recoverCreateProxySigner, recoverOpSigner } from '../../../src/perps/signing/verify.ts'
import {
  COLLATERAL_TOKEN,
  PERPS_DEPOSIT_CONTRACT,
  withdrawBody,
  withdrawDigest,
} from '../../../src/perps/signing/withdraw.ts'
import { seededRandom } from '../../../src/random.ts'
import { acceptWebSocket } from './loopbackWebSocket.ts'

const NODE_MAJOR = Number(process.versions.node.split('.')[0])

// Public Hardhat/Anvil dev key (protocol-notes a.4); never funded.
const OWNER_PK = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const OWNER = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
const CLOB_API_KEY = '00000000-0000-4000-8000-000000000001'

type Json = Record<string, unknown>
type OfficialClient = Awaited<ReturnType<typeof import('@polymarket/client')['createSecureClient']>>
type OfficialSession = Awaited<ReturnType<OfficialClient['openPerpsSession']>>

const fixedClock: Clock = { now: () => 0, setTimeout: () => undefined, clearTimeout: () => undefined }

describe.runIf(NODE_MAJOR >= 24)('official @polymarket/client parity (Node >= 24)', () => {
  const rest: { method: string; path: string; body: Json }[] = []
  const frames: Json[] = []
  let server: Server
  let client: OfficialClient
  let session: OfficialSession
  let proxySigner: CommandSigner
  let ownerSigner: CommandSigner
  let proxyKey: { proxy: string; expiry: number } | undefined
  let official: typeof import('@polymarket/client')

  beforeAll(async () => {
    official = await import('@polymarket/client')
    const viemAdapter = await import('@polymarket/client/viem')

    server = createServer((req, res) => {
      void handleRest(req, res)
    })
    server.on('upgrade', (req: IncomingMessage, socket) => {
      acceptWebSocket(req, socket, (text, peer) => {
        const frame = JSON.parse(text) as Json
        const id = frame.id
        const op = frame.op as Json | undefined
        if (frame.req === 'sub' || op?.type === 'auth') {
          peer.sendText(JSON.stringify({ id, data: { status: 'ok' } }))
          return
        }
        if (op?.type === 'createOrders') {
          frames.push(frame)
          const acks = (op.args as unknown[]).map((_, i) => ({
            status: 'ok',
            oid: 9000 + frames.length * 10 + i,
          }))
          peer.sendText(JSON.stringify({ id, data: acks }))
        } else if (op?.type === 'cancelOrders') {
          frames.push(frame)
          const results = (op.args as number[]).map((oid) => ({ status: 'ok', oid }))
          peer.sendText(JSON.stringify({ id, data: results }))
        } else if (op?.type === 'cancelOrdersCOID') {
          frames.push(frame)
          const results = (op.args as string[]).map((coid) => ({ status: 'ok', coid }))
          peer.sendText(JSON.stringify({ id, data: results }))
        } else if (op?.type === 'updateLeverage') {
          frames.push(frame)
          const a = op.args as { iid: number; lev: number; cross: boolean }
          peer.sendText(
            JSON.stringify({
              id,
              data: { status: 'ok', instrument_id: a.iid, leverage: a.lev, cross: a.cross },
            }),
          )
        }
        // ping (id 0) and anything else: no answer needed.
      })
    })
    server.listen(0, '127.0.0.1')
    await new Promise<void>((resolve) => server.once('listening', () => resolve()))
    const { port } = server.address() as AddressInfo
    const base = `http://127.0.0.1:${port}`

    // Every endpoint the client knows points at the loopback server, so nothing can leave 127.0.0.1.
    const environment = official.forkEnvironmentConfig({
      name: 'loopback',
      rpc: base,
      clob: { rest: base },
      relayer: { rest: base },
      gamma: { rest: base },
      data: { rest: base },
      perps: { rest: base, ws: `ws://127.0.0.1:${port}/v1/ws` },
    })
    client = await official.createSecureClient({
      environment,
      signer: viemAdapter.privateKey(OWNER_PK, { transport: http(base) }),
      wallet: OWNER,
      credentials: {
        key: CLOB_API_KEY,
        secret: Buffer.from('clob-secret').toString('base64'),
        passphrase: 'p',
      },
    } as Parameters<typeof official.createSecureClient>[0])
    session = await client.openPerpsSession({ label: 'parity' })
    proxySigner = createCommandSigner({
      privateKey: session.credentials.privateKey,
      clock: fixedClock,
      salts: seededRandom(1),
    })
    ownerSigner = createCommandSigner({ privateKey: OWNER_PK, clock: fixedClock, salts: seededRandom(2) })
  })

  afterAll(async () => {
    await session?.close().catch(() => undefined)
    await client?.closeSubscriptions().catch(() => undefined)
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
  })

  async function handleRest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const text = Buffer.concat(chunks).toString('utf8')
    const body = (text ? JSON.parse(text) : {}) as Json
    const path = (req.url ?? '').split('?')[0] ?? ''
    const send = (status: number, payload: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(payload))
    }
    if (req.method === 'GET' && path === '/auth/api-keys') return send(200, { apiKeys: [CLOB_API_KEY] })
    rest.push({ method: req.method ?? '', path, body })
    if (req.method === 'POST' && path === '/v1/account/proxy') {
      const args = (body.op as Json).args as Json
      proxyKey = { proxy: String(args.proxy), expiry: Number(args.expiry) }
      return send(200, { status: 'ok', secret: 'proxy-secret' })
    }
    if (req.method === 'GET' && path === '/v1/account/credentials') {
      return send(200, { address: OWNER, keys: proxyKey ? [proxyKey] : [] })
    }
    if (req.method === 'POST' && path === '/v1/account/withdraw')
      return send(200, { status: 'ok', withdraw_id: 7 })
    if (req.method === 'DELETE' && (path === '/v1/trade/orders/all' || path === '/v1/account/proxy')) {
      return send(200, { status: 'ok' })
    }
    send(404, { status: 'err', error: 'not_found' })
  }

  function lastRest(method: string, path: string): Json {
    const hit = rest.filter((r) => r.method === method && r.path === path).at(-1)
    if (hit === undefined) throw new Error(`no ${method} ${path} captured`)
    return hit.body
  }

  async function expectSameOp(
    captured: Json,
    built: { op: unknown; signedOp: Parameters<CommandSigner['signOp']>[0] },
    signer: CommandSigner,
  ): Promise<void> {
    expect(captured.op).toStrictEqual(built.op)
    const stamp = { salt: captured.salt as number, ts: captured.ts as number }
    expect(await signer.signOp(built.signedOp, stamp)).toBe(captured.sig)
    expect(await recoverOpSigner(DEFAULT_PERPS_DOMAIN, captured)).toBe(signer.address)
  }

  it('createProxy: same body and a byte-identical owner signature', async () => {
    const body = lastRest('POST', '/v1/account/proxy')
    const args = (body.op as Json).args as { owner: string; proxy: string; expiry: number }
    expect(args.owner).toBe(OWNER)
    // The client sends the generated proxy address lower-case (ox), not checksummed: hashed as sent.
    expect(args.proxy.toLowerCase()).toBe(proxySigner.address.toLowerCase())
    const stamp = { salt: body.salt as number, ts: body.ts as number }
    const ours = await ownerSigner.signCreateProxyMessage({ proxy: args.proxy, expiry: args.expiry }, stamp)
    expect(ours).toBe(body.sig)
    expect(body).toStrictEqual({
      op: { type: 'createProxy', args: { owner: OWNER, proxy: args.proxy, expiry: args.expiry } },
      sig: ours,
      salt: stamp.salt,
      ts: stamp.ts,
      label: 'parity',
    })
    expect(await recoverCreateProxySigner(DEFAULT_PERPS_DOMAIN, body)).toBe(OWNER)
  })

  it('createOrders (GTC post-only, IOC reduce-only with coid, FOK, exp): identical op and signature', async () => {
    const exp = Date.now() + 4_000
    await session.postOrders({
      expiresAt: exp,
      orders: [
        {
          instrumentId: 1,
          side: official.OrderSide.BUY,
          price: '100.5',
          quantity: '2',
          timeInForce: official.PerpsTimeInForce.GTC,
          postOnly: true,
        },
        {
          instrumentId: 7,
          side: official.OrderSide.SELL,
          quantity: '0.25',
          timeInForce: official.PerpsTimeInForce.IOC,
          reduceOnly: true,
          clientOrderId: '0123456789abcdef0123456789abcdef',
        },
        {
          instrumentId: 4_294_967_295,
          side: official.OrderSide.BUY,
          price: '0.00001',
          quantity: '1000',
          timeInForce: official.PerpsTimeInForce.FOK,
        },
      ],
    })
    const frame = frames.at(-1) as Json
    expect(frame.exp).toBe(exp)
    const built = buildCreateOrders({
      orders: [
        { iid: 1, buy: true, p: '100.5', qty: '2', tif: 'gtc', po: true },
        { iid: 7, buy: false, qty: '0.25', tif: 'ioc', ro: true, coid: '0123456789abcdef0123456789abcdef' },
        { iid: 4_294_967_295, buy: true, p: '0.00001', qty: '1000', tif: 'fok' },
      ],
    })
    await expectSameOp(frame, built, proxySigner)
  })

  it('createOrders with an order-scoped TP/SL group (triggers, market flag, grp): identical', async () => {
    const before = frames.length
    // placeOrder then waits for an `orders` event that never comes; closing the session ends it.
    const pending = session
      .placeOrder({
        instrumentId: 3,
        side: official.OrderSide.BUY,
        price: '50',
        quantity: '4',
        timeInForce: official.PerpsTimeInForce.GTC,
        takeProfit: { triggerPrice: '60', limitPrice: '59.5' },
        stopLoss: { triggerPrice: '45' },
      })
      .catch(() => undefined)
    await waitUntil(() => frames.length > before)
    const built = buildCreateOrders({
      orders: [
        { iid: 3, buy: true, p: '50', qty: '4', tif: 'gtc' },
        { iid: 3, buy: false, p: '59.5', qty: '4', ro: true, trigger: { trp: '60', tpsl: 'tp' } },
        { iid: 3, buy: false, qty: '4', ro: true, trigger: { trp: '45', tpsl: 'sl', market: true } },
      ],
      grp: 'order',
    })
    await expectSameOp(frames.at(-1) as Json, built, proxySigner)
    void pending
  })

  it('cancelOrders: identical op and signature', async () => {
    await session.cancelOrders({ orderIds: [1_234_567_890, 1_234_567_891, 5] })
    await expectSameOp(
      frames.at(-1) as Json,
      buildCancelOrders({ oids: [1_234_567_890, 1_234_567_891, 5] }),
      proxySigner,
    )
  })

  it('cancelOrdersCOID (cancel by client order id): identical op and signature', async () => {
    const coids = ['0123456789abcdef0123456789abcdef', 'fedcba9876543210fedcba9876543210']
    await session.cancelOrders({ clientOrderIds: coids })
    await expectSameOp(frames.at(-1) as Json, buildCancelOrdersCoid({ coids }), proxySigner)
  })

  it('updateLeverage (leverage and margin mode): identical op and signature', async () => {
    await session.updateLeverage({ instrumentId: 7, leverage: 3, crossMargin: false })
    await expectSameOp(
      frames.at(-1) as Json,
      buildUpdateLeverage({ iid: 7, lev: 3, cross: false }),
      proxySigner,
    )
    await session.updateLeverage({ instrumentId: 4_294_967_295, leverage: 50, crossMargin: true })
    await expectSameOp(
      frames.at(-1) as Json,
      buildUpdateLeverage({ iid: 4_294_967_295, lev: 50, cross: true }),
      proxySigner,
    )
  })

  it('cancelAll with and without an instrument (REST DELETE): identical op and signature', async () => {
    await session.cancelAllOrders({ instrumentId: 12 })
    await expectSameOp(lastRest('DELETE', '/v1/trade/orders/all'), buildCancelAll({ iid: 12 }), proxySigner)
    await session.cancelAllOrders()
    await expectSameOp(lastRest('DELETE', '/v1/trade/orders/all'), buildCancelAll(), proxySigner)
  })

  it('withdraw (owner-signed Withdraw typed data, ts in seconds): our body and digest are the official ones', async () => {
    expect(await client.withdrawFromPerps({ amount: 5_000_000n })).toBe(7)
    const body = lastRest('POST', '/v1/account/withdraw')
    const args = (body.op as Json).args as Json
    const m = {
      account: ownerSigner.address,
      token: COLLATERAL_TOKEN,
      amount: 5_000_000n,
      to: ownerSigner.address,
      salt: body.salt as number,
      ts: body.ts as number,
    }
    expect(body.op).toStrictEqual(withdrawBody(m, '0x').op)
    expect(String(args.account).toLowerCase()).toBe(OWNER.toLowerCase())
    const digest = withdrawDigest(DEFAULT_PERPS_DOMAIN, PERPS_DEPOSIT_CONTRACT, m)
    expect((await recoverAddress({ hash: digest, signature: body.sig as `0x${string}` })).toLowerCase()).toBe(
      OWNER.toLowerCase(),
    )
    expect(Math.abs((body.ts as number) - Math.floor(Date.now() / 1000))).toBeLessThan(120)
  })

  it('deleteProxy (owner-signed generic Op): byte-identical signature', async () => {
    await client.revokePerpsCredentials({ proxy: proxySigner.address })
    const body = lastRest('DELETE', '/v1/account/proxy')
    expect(body.op).toStrictEqual({ type: 'deleteProxy', args: { proxy: proxySigner.address } })
    const stamp = { salt: body.salt as number, ts: body.ts as number }
    expect(await ownerSigner.signOp(['deleteProxy', [proxySigner.address]], stamp)).toBe(body.sig)
  })
})

/** Resolves once `cond` holds, yielding to the event loop between checks (no timers, no sleeping). */
async function waitUntil(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 10_000 && !cond(); i++) await new Promise<void>((resolve) => setImmediate(resolve))
  if (!cond()) throw new Error('condition not met')
}

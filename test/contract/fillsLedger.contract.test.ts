/**
 * One mock session, two ways to learn its fills: the `fills` channel (terse keys) and
 * `GET /v1/account/fills` (the venue's long keys). The PnL ledger fed from REST alone must equal the
 * one fed from the stream: the ledger must not go blind when the stream is down.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PnlLedger } from '../../src/bot/account/pnlLedger.ts'
import type { RunningMock } from '../../src/mock/server.ts'
import { createPerpsClient, type PerpsClient } from '../../src/perps/client/createPerpsClient.ts'
import type { Fill } from '../../src/perps/schemas/account.ts'
import { CommandSigner } from '../../src/perps/signing/commandSigner.ts'
import { SaltSource } from '../../src/perps/signing/salt.ts'
import type { StreamClient } from '../../src/perps/stream/streamClient.ts'
import { seededRandom } from '../../src/random.ts'
import {
  advance,
  PROXY,
  PROXY_PK,
  SECRET,
  startStreamMock,
  streamClient,
  until,
} from '../perps/stream/streamHarness.ts'

let mock: RunningMock
let rest: PerpsClient
let stream: StreamClient
const streamed: Fill[] = []

beforeAll(async () => {
  mock = await startStreamMock()
  rest = createPerpsClient({
    baseUrl: mock.url,
    clock: mock.clock,
    random: seededRandom(3),
    credentials: { proxy: PROXY, secret: SECRET },
    signer: new CommandSigner({
      privateKey: PROXY_PK,
      clock: mock.clock,
      salts: new SaltSource(seededRandom(9)),
    }),
  })
  stream = streamClient(mock, { credentials: { proxy: PROXY, secret: SECRET } }).client
  stream.onPush((p) => {
    if (p.kind === 'fills') streamed.push(...p.data)
  })
  stream.subscribe(['fills'])
  stream.start()
  await until(() => stream.health().channels.every((c) => c.subscribed), 'fills subscribed')
})
afterAll(async () => {
  await stream.close()
  await rest.close()
  await mock.close()
})

describe('fills: REST and stream agree', () => {
  it('the ledger fed from REST alone equals the ledger fed from the stream', async () => {
    const [inst] = await rest.getInstruments()
    if (inst === undefined) expect.unreachable()
    const iid = inst.instrument_id
    // Takers both ways: open, add, reverse through zero, reduce (realized PnL, fees, previous sizes).
    const sizes: [boolean, string][] = [
      [true, '0.02'],
      [true, '0.01'],
      [false, '0.05'],
      [true, '0.01'],
    ]
    for (const [buy, qty] of sizes) {
      const [ack] = await rest.createOrders([{ iid, buy, qty, tif: 'ioc' }])
      expect(ack?.status).toBe('ok')
      await advance(mock, 2_000)
    }
    await advance(mock, 60_000, 5_000)
    const restFills: Fill[] = []
    for await (const f of rest.iterateFills({ startTimestamp: 0 })) restFills.push(f)
    await until(() => streamed.length >= restFills.length, 'every fill pushed')

    expect(restFills.length).toBeGreaterThanOrEqual(4)
    expect(streamed).toHaveLength(restFills.length)
    const fromStream = new PnlLedger()
    for (const f of streamed) fromStream.applyFill(f)
    const fromRest = new PnlLedger()
    // REST pages run newest first; the ledger is order-independent for sums, but feed it in time order.
    for (const f of [...restFills].sort((a, b) => a.ts - b.ts || Number(a.tid) - Number(b.tid)))
      fromRest.applyFill(f)
    expect(fromRest.snapshot()).toEqual(fromStream.snapshot())
    // Field for field, except what only one side carries (REST: hash; stream: client order id).
    const strip = ({ hash: _h, coid: _c, ...f }: Fill) => f
    const byKey = (fs: Fill[]) => new Map(fs.map((f) => [`${f.tid}:${f.oid}`, strip(f)]))
    expect(byKey(restFills)).toEqual(byKey(streamed))
    expect(fromRest.snapshot().account.fees).not.toBe('0')
  })
})

/**
 * The client's typed commands (perps/typedCommands.ts): on a transport that takes them, the trading
 * commands go as stamped ops (the very op and stamp a signature would cover, no signature, no JSON)
 * and their answer's value is parsed by the same schema; on a plain transport the same call is signed
 * and sent as JSON. The gate admits both with the same weights, and an error answer maps to the
 * same error.
 */
import { describe, expect, it } from 'vitest'
import { RateLimitError, UnknownOutcomeError } from '../../../src/errors.ts'
import type { HttpRequest, HttpResponse, HttpTransport } from '../../../src/http/transport.ts'
import { createPerpsClient } from '../../../src/perps/client/createPerpsClient.ts'
import { CommandSigner } from '../../../src/perps/signing/commandSigner.ts'
import type { GatedRequest } from '../../../src/perps/throttle/requestGate.ts'
import { FREE_ADMISSION } from '../../../src/perps/throttle/requestGate.ts'
import type { TypedCommand, TypedCommandTransport } from '../../../src/perps/typedCommands.ts'
import { seededRandom } from '../../../src/random.ts'
import { FakeClock, PROXY_ADDRESS, PROXY_PK } from './harness.ts'

const ACKS = [{ status: 'ok', oid: 7 }]

function transports(answer: () => { status: number; body: unknown; headers?: Record<string, string> }) {
  const sent: HttpRequest[] = []
  const typed: TypedCommand[] = []
  const plain: HttpTransport = {
    origin: 'http://127.0.0.1:0',
    request: async (req) => {
      sent.push(req)
      const a = answer()
      return { status: a.status, headers: a.headers ?? {}, text: JSON.stringify(a.body) }
    },
    close: async () => undefined,
  }
  const withTyped: TypedCommandTransport = {
    ...plain,
    command: async (_req, command): Promise<HttpResponse> => {
      typed.push(command)
      const a = answer()
      return { status: a.status, headers: a.headers ?? {}, text: '', json: a.body }
    },
  }
  return { sent, typed, plain, withTyped }
}

function client(transport: HttpTransport, admitted: GatedRequest[]) {
  const clock = new FakeClock()
  const signer = new CommandSigner({ privateKey: PROXY_PK, clock, salts: seededRandom(3) })
  return createPerpsClient({
    transport,
    clock,
    signer,
    gate: {
      admit: async (r) => {
        admitted.push({ ...r, signal: undefined })
        return FREE_ADMISSION
      },
    },
  })
}

const ORDERS = [{ iid: 2, buy: true, p: '2990', qty: '0.5', tif: 'gtc' as const, po: true }]

describe('typed commands in the perps client', () => {
  it('stamp instead of sign on a transport that takes them; the same op, stamp, weights and result', async () => {
    const t = transports(() => ({ status: 200, body: ACKS }))
    const typedGate: GatedRequest[] = []
    const signedGate: GatedRequest[] = []
    const viaTyped = await client(t.withTyped, typedGate).createOrders(ORDERS)
    const viaSigned = await client(t.plain, signedGate).createOrders(ORDERS)
    expect(viaTyped).toEqual(viaSigned)
    expect(t.typed).toHaveLength(1)
    expect(t.sent).toHaveLength(1) // only the signed client's request
    const signedBody = t.sent[0]?.body as Record<string, unknown>
    const { sig, ...stamped } = signedBody
    expect(typeof sig).toBe('string')
    // Same seed, same clock: the typed command is the signed body without its signature.
    expect(t.typed[0]?.stamped).toEqual(stamped)
    expect(t.typed[0]?.signer).toBe(PROXY_ADDRESS)
    expect(typedGate).toEqual(signedGate)
  })

  it('maps an error answer as the signed path does', async () => {
    let status = 429
    const t = transports(() => ({
      status,
      body: { status: 'err', error: 'action_rate_limited' },
      headers: { 'retry-after': '2' },
    }))
    const c = client(t.withTyped, [])
    const limited = await c.modifyOrders([{ oid: 7, p: '2991', qty: '0.5' }]).catch((e: unknown) => e)
    expect(limited).toBeInstanceOf(RateLimitError)
    expect((limited as RateLimitError).retryAfterMs).toBe(2_000)
    status = 503
    await expect(c.cancelOrders([7])).rejects.toBeInstanceOf(UnknownOutcomeError)
    expect(t.typed.map((x) => x.stamped.op.type)).toEqual(['modifyOrders', 'cancelOrders'])
    expect(t.sent).toHaveLength(0)
  })

  it('types the account settings too (leverage), with the same result as signed', async () => {
    const answer = { status: 'ok', instrument_id: 2, leverage: 5, cross: true }
    const t = transports(() => ({ status: 200, body: answer }))
    const params = { instrumentId: 2, leverage: 5, cross: true }
    const typed = await client(t.withTyped, []).updateLeverage(params)
    const signed = await client(t.plain, []).updateLeverage(params)
    expect(typed).toEqual(signed)
    expect(t.typed.map((x) => x.stamped.op)).toEqual([
      { type: 'updateLeverage', args: { cross: true, iid: 2, lev: 5 } },
    ])
    expect(typeof (t.sent[0]?.body as { sig?: unknown })?.sig).toBe('string')
  })
})

/**
 * Stream faults of the mock's WebSocket, part of the fault config (`faults.stream`). Rolled per
 * connection on each push tick from the stream server's own seeded random:
 * - `dropConnection`: the server closes the socket (code 1012): the client must reconnect and resync;
 * - `sequenceGap`: one push is skipped (its `sq` is spent): the client must report the gap;
 * - `stall`: the connection goes silent (no pushes, acks or pongs) for `durationMs`: the client must
 *   call its channels stale, and drop the socket when past its idle bound;
 * - `slowConsumer`: the server treats the client as too slow, sends `slow_consumer` and closes (1008).
 *   A real backlog above the server's `maxBufferedBytes` does the same.
 * - `foreignOrders`: another client on the account floods the `orders` channel: `perSecond` pushes a
 *   second of the mock's clock (in bursts every `everyMs`), each a new order of that client resting
 *   far from the touch, every third one cancelled again (issue 34: 5,000 a second must leave the bot
 *   answering and its exit policy working). Not rolled: on while configured.
 */
import { z } from 'zod'

const probability = z.number().min(0).max(1)

export const StreamFaultSchema = z.strictObject({
  dropConnection: probability.optional(),
  sequenceGap: probability.optional(),
  stall: z.strictObject({ probability, durationMs: z.number().int().min(1).max(600_000) }).optional(),
  slowConsumer: probability.optional(),
  foreignOrders: z
    .strictObject({
      perSecond: z.number().int().min(1).max(100_000),
      /** Burst interval on the mock's clock. Default 10 ms. */
      everyMs: z.number().int().min(1).max(1_000).optional(),
    })
    .optional(),
})
export type StreamFaultConfig = z.infer<typeof StreamFaultSchema>

export type StreamFaultKind = 'dropConnection' | 'sequenceGap' | 'stall' | 'slowConsumer' | 'foreignOrders'

/** The foreign client's order ids start here (far above the mock's own). */
export const FOREIGN_FLOOD_FIRST_OID = 9_000_000_000_000
/** The foreign client's client order id: the venue's 32 hex, under a tag of its own (`f0f0f0f0`). */
export const foreignFloodCoid = (n: number): string => `f0f0f0f0${n.toString(16).padStart(24, '0')}`

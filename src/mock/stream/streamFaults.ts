/**
 * Stream faults of the mock's WebSocket, part of the fault config (`faults.stream`). Rolled per
 * connection on each push tick from the stream server's own seeded random:
 * - `dropConnection`: the server closes the socket (code 1012): the client must reconnect and resync;
 * - `sequenceGap`: one push is skipped (its `sq` is spent): the client must report the gap;
 * - `stall`: the connection goes silent (no pushes, acks or pongs) for `durationMs`: the client must
 *   call its channels stale, and drop the socket when past its idle bound;
 * - `slowConsumer`: the server treats the client as too slow, sends `slow_consumer` and closes (1008).
 *   A real backlog above the server's `maxBufferedBytes` does the same.
 */
import { z } from 'zod'

const probability = z.number().min(0).max(1)

export const StreamFaultSchema = z.strictObject({
  dropConnection: probability.optional(),
  sequenceGap: probability.optional(),
  stall: z.strictObject({ probability, durationMs: z.number().int().min(1).max(600_000) }).optional(),
  slowConsumer: probability.optional(),
})
export type StreamFaultConfig = z.infer<typeof StreamFaultSchema>

export type StreamFaultKind = 'dropConnection' | 'sequenceGap' | 'stall' | 'slowConsumer'

/**
 * The venue clock sync: the start-up's connect step, the bot's time poller and the preflight share it.
 */
import type { Clock, OffsetClock } from '../../clock.ts'
import { estimateClockOffset } from '../signing/timing.ts'
import type { PerpsClient } from './createPerpsClient.ts'

/**
 * Measures the venue clock offset NTP-style: up to `samples` round trips, keeping the midpoint
 * estimate of the shortest one. A round trip longer than `maxRttMs` (it waited in the limiter or a
 * slow network) says little about the offset and is discarded; if every sample is discarded the
 * previous offset stays and `undefined` is returned.
 * @throws {@link ClockSkewError} when the estimate is beyond the clock's `maxOffsetMs`: the offset is
 * refused and the clock untrusted, so signers refuse until a later sync lands within the bound.
 */
export async function syncClock(
  perps: PerpsClient,
  base: Clock,
  venueClock: OffsetClock,
  opts: { samples?: number; maxRttMs?: number; signal?: AbortSignal | undefined } = {},
): Promise<number | undefined> {
  let best: { rtt: number; offset: number } | undefined
  for (let i = 0; i < (opts.samples ?? 1); i++) {
    const sent = base.now()
    const { time } = await perps.getTime({ signal: opts.signal })
    const recv = base.now()
    const rtt = recv - sent
    if (rtt > (opts.maxRttMs ?? 2_000)) continue
    if (!best || rtt < best.rtt) best = { rtt, offset: estimateClockOffset(sent, time, recv) }
  }
  if (best) venueClock.setOffset(best.offset)
  return best?.offset
}

/** The time window and instrument query every history read shares (`*_timestamp` in Unix ms). */
import { TimestampInput } from './perpsCall.ts'

export const TimeWindow = {
  startTimestamp: TimestampInput.optional(),
  endTimestamp: TimestampInput.optional(),
}

export const startNotAfterEnd = (p: {
  startTimestamp?: number | undefined
  endTimestamp?: number | undefined
}) => p.startTimestamp === undefined || p.endTimestamp === undefined || p.startTimestamp <= p.endTimestamp
export const WINDOW_ORDER = {
  message: 'startTimestamp must not be after endTimestamp',
  path: ['startTimestamp'],
}

/** Query of a window plus any extra parameters (undefined ones left out). */
export function windowQuery(
  p: { startTimestamp?: number | undefined; endTimestamp?: number | undefined },
  extra: Record<string, string | number | undefined> = {},
): URLSearchParams {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) q.set(k, String(v))
  if (p.startTimestamp !== undefined) q.set('start_timestamp', String(p.startTimestamp))
  if (p.endTimestamp !== undefined) q.set('end_timestamp', String(p.endTimestamp))
  return q
}

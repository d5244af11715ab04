/**
 * Each holder's own line in the fleet's view: the account's net PnL since start, the bot's state and
 * this process's share of the egress budget, written to Redis (`{prefix}:report:{account}`) every few
 * seconds while the lease is held, with a TTL of a few periods. `perpbot status --fleet` and the ops
 * server's `/fleet` page read every account's report with the leases in one round trip each.
 *
 * Why Redis and not each holder's `/status` or the journal: every fleet process and the operator's
 * CLI already reach Redis, while the holders' ops ports sit behind their pods' addresses, a
 * NetworkPolicy and the ops token; one MGET reads the whole fleet; and a dead holder's report lapses
 * with its TTL instead of showing a stale PnL as current. The journal keeps the history (per minute),
 * not the live figure.
 */
import { z } from 'zod'
import { type Clock, systemClock, type TimerId } from '../clock.ts'

export const HolderReport = z.object({
  account: z.string(),
  holder: z.string(),
  epoch: z.number().int(),
  /** The bot's instruments by state, e.g. `quoting 3` or `quoting 2, halted 1`. */
  state: z.string(),
  /** Net PnL of the account since this process started (decimal string, the account's currency). */
  netPnl: z.string().optional(),
  currency: z.string().optional(),
  /** This process's own request weight among the egress window's admissions. */
  ownWeight: z.number(),
  /** Wall time of the report (ms). */
  at: z.number(),
})
export type HolderReport = z.infer<typeof HolderReport>

/** What the bot adds to the report (read from its status). */
export type BotReportBody = Pick<HolderReport, 'state' | 'netPnl' | 'currency'>

export interface ReportClient {
  set(key: string, value: string, px: 'PX', ms: number): Promise<unknown>
  mget(...keys: string[]): Promise<(string | null)[]>
}

export const reportKey = (prefix: string, account: string): string => `${prefix}:report:${account}`

/** The instruments' states as one short phrase: `quoting 2, halted 1`. */
export function statesPhrase(states: readonly string[]): string {
  const n = new Map<string, number>()
  for (const s of states) {
    const head = s.split('.').at(-1) ?? s
    n.set(head, (n.get(head) ?? 0) + 1)
  }
  return [...n].map(([s, k]) => `${s} ${k}`).join(', ') || 'no instruments'
}

export interface HolderReports {
  stop(): void
}

/** Writes the report now and every `everyMs` while `held()`; a failed write is tried at the next tick. */
export function startHolderReports(o: {
  client: ReportClient
  account: string
  holder: string
  epoch: number
  held: () => boolean
  ownWeight: () => number
  read: () => BotReportBody
  everyMs?: number | undefined
  keyPrefix?: string | undefined
  clock?: Clock | undefined
}): HolderReports {
  const clock = o.clock ?? systemClock
  const everyMs = o.everyMs ?? 2_000
  const key = reportKey(o.keyPrefix ?? 'perpbot', o.account)
  let stopped = false
  let timer: TimerId | undefined
  const tick = (): void => {
    if (stopped) return
    if (o.held()) {
      const report: HolderReport = {
        account: o.account,
        holder: o.holder,
        epoch: o.epoch,
        ...o.read(),
        ownWeight: o.ownWeight(),
        at: clock.now(),
      }
      // The report is informational: an outage only makes it lapse.
      o.client.set(key, JSON.stringify(report), 'PX', 3 * everyMs).catch(() => undefined)
    }
    timer = clock.setTimeout(tick, everyMs)
  }
  tick()
  return {
    stop() {
      stopped = true
      if (timer !== undefined) clock.clearTimeout(timer)
    },
  }
}

/** Every account's current report (absent: no holder wrote one within its TTL, or it is unreadable). */
export async function readHolderReports(
  client: Pick<ReportClient, 'mget'>,
  accounts: readonly string[],
  keyPrefix = 'perpbot',
): Promise<Map<string, HolderReport>> {
  const out = new Map<string, HolderReport>()
  if (accounts.length === 0) return out
  const raw = await client.mget(...accounts.map((a) => reportKey(keyPrefix, a)))
  accounts.forEach((a, i) => {
    const text = raw[i]
    if (typeof text !== 'string') return
    try {
      const r = HolderReport.safeParse(JSON.parse(text))
      if (r.success && r.data.account === a) out.set(a, r.data)
    } catch {
      // Unreadable: shown as no report.
    }
  })
  return out
}

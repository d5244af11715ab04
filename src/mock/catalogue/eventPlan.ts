/**
 * What one generated event will be, drawn per topic kind before any wire field: title, description,
 * dates, lifecycle flags and the markets' questions and prices. `generateEvent` turns a plan into the
 * wire form.
 */
import type { Random } from '../../random.ts'
import type { EventGenerator, Topic } from './catalogueTypes.ts'
import { chance, DAY_MS, HOUR_MS, isoDate, isoSeconds, monthDay, monthYear } from './wireFormat.ts'

export interface MarketSpec {
  question: string
  groupItemTitle?: string | undefined
  outcomes: readonly [string, string]
  /** Price of the first outcome in thousandths (1..999). */
  priceMilli: number
  line?: number | undefined
  sportsMarketType?: string | undefined
  gameId?: string | undefined
  teams?: readonly [string, string] | undefined
}

export interface EventPlan {
  title: string
  description: string
  startMs: number
  endMs: number
  closed: boolean
  markets: MarketSpec[]
  negRisk: boolean
  eventDate?: string | undefined
  startTime?: number | undefined
  game?:
    | {
        live: boolean
        ended: boolean
        score: string | undefined
        period: string | undefined
        elapsed: string | undefined
        eventWeek: number | undefined
        spread: number
        total: number
      }
    | undefined
  parentEvent?: string | undefined
  volumeMedian: number
}

function priceMilli(rng: Random): number {
  return Math.min(999, Math.max(1, Math.round(500 + 220 * rng.normal())))
}

export function planFor(g: EventGenerator, topic: Topic): EventPlan {
  const { rng, nowMs } = g
  const dayStart = (ms: number): number => Math.floor(ms / DAY_MS) * DAY_MS
  switch (topic.kind) {
    case 'cryptoDaily': {
      const day = dayStart(nowMs) + rng.int(-700, 3) * DAY_MS
      const endMs = day + 16 * HOUR_MS
      return {
        title: `${topic.subject} Up or Down on ${monthDay(day)}?`,
        description: `This market resolves to "Up" if the ${topic.code}/USDT close on ${monthDay(day)} is higher than the open, otherwise "Down".`,
        startMs: endMs - DAY_MS,
        endMs,
        closed: endMs < nowMs,
        markets: [
          {
            question: `${topic.subject} Up or Down on ${monthDay(day)}?`,
            outcomes: ['Up', 'Down'],
            priceMilli: priceMilli(rng),
          },
        ],
        negRisk: false,
        eventDate: isoDate(day),
        volumeMedian: 40_000,
      }
    }
    case 'cryptoMonthly': {
      const d = new Date(nowMs)
      const monthStart = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + rng.int(-14, 1), 1)
      const next = new Date(monthStart)
      const endMs = Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 1) - 1000
      const base =
        topic.code === 'BTC' ? 100_000 : topic.code === 'ETH' ? 4_000 : topic.code === 'SOL' ? 200 : 3
      const steps = rng.int(3, 7)
      const markets: MarketSpec[] = []
      for (let i = 1; i <= steps; i++) {
        const up = i % 2 === 1
        const level = base * (1 + (up ? 1 : -1) * 0.05 * Math.ceil(i / 2))
        const label = `${up ? '↑' : '↓'} ${thousands(level)}`
        markets.push({
          question: `Will ${topic.subject} ${up ? 'reach' : 'dip to'} $${thousands(level)} in ${monthYear(monthStart)}?`,
          groupItemTitle: label,
          outcomes: ['Yes', 'No'],
          priceMilli: Math.max(1, Math.round(priceMilli(rng) / Math.ceil(i / 2))),
        })
      }
      return {
        title: `What price will ${topic.subject} hit in ${monthYear(monthStart)}?`,
        description: `Resolves by the ${topic.code}/USDT 1-minute candles on Binance during ${monthYear(monthStart)}.`,
        startMs: monthStart - rng.int(1, 5) * DAY_MS,
        endMs,
        closed: endMs < nowMs,
        markets,
        negRisk: false,
        volumeMedian: 120_000,
      }
    }
    case 'game': {
      const [a, b] = pickTwo(rng, topic.names)
      // A few games are under way at `nowMs`, so `live` filters have something to find.
      const start = chance(rng, 0.03)
        ? nowMs - rng.int(10, 170) * 60_000
        : dayStart(nowMs) + rng.int(-300, 10) * DAY_MS + rng.int(-8, 6) * HOUR_MS + 30 * 60_000
      const live = start <= nowMs && nowMs < start + 3 * HOUR_MS
      const ended = nowMs >= start + 3 * HOUR_MS
      const gameId = String(rng.int(10_000_000, 99_999_999))
      const spread = (rng.int(1, 12) + 0.5) * (chance(rng, 0.5) ? 1 : -1)
      const total =
        topic.code === 'NBA' ? rng.int(205, 240) + 0.5 : topic.code === 'MLB' ? 8.5 : rng.int(2, 50) + 0.5
      const teams: [string, string] = [a, b]
      const title = `${a} vs. ${b}`
      const sa = rng.int(0, topic.code === 'NBA' ? 130 : 40)
      const sb = rng.int(0, topic.code === 'NBA' ? 130 : 40)
      return {
        title,
        description: `${topic.code}: ${a} vs. ${b}, scheduled for ${isoSeconds(start)}.`,
        startMs: start - rng.int(2, 7) * DAY_MS,
        endMs: start + 4 * HOUR_MS,
        closed: ended && chance(rng, 0.95),
        markets: [
          {
            question: title,
            outcomes: teams,
            priceMilli: priceMilli(rng),
            sportsMarketType: 'moneyline',
            gameId,
            teams,
          },
          {
            question: `Spread: ${a} (${spread > 0 ? '+' : ''}${spread})`,
            groupItemTitle: `Spread ${spread}`,
            outcomes: teams,
            priceMilli: priceMilli(rng),
            line: spread,
            sportsMarketType: 'spreads',
            gameId,
            teams,
          },
          {
            question: `${a} vs. ${b}: O/U ${total}`,
            groupItemTitle: `O/U ${total}`,
            outcomes: ['Over', 'Under'],
            priceMilli: priceMilli(rng),
            line: total,
            sportsMarketType: 'totals',
            gameId,
            teams,
          },
        ],
        negRisk: false,
        eventDate: isoDate(start),
        startTime: start,
        game: {
          live,
          ended,
          score: live || ended ? `${sa}-${sb}` : undefined,
          period: ended
            ? 'FT'
            : live
              ? topic.code === 'NBA' || topic.code === 'NFL'
                ? 'Q3'
                : '2H'
              : undefined,
          elapsed: live
            ? `${String(rng.int(0, 11)).padStart(2, '0')}:${String(rng.int(0, 59)).padStart(2, '0')}`
            : undefined,
          eventWeek: topic.code === 'NFL' ? rng.int(1, 18) : undefined,
          spread,
          total,
        },
        volumeMedian: 60_000,
      }
    }
    case 'election': {
      const day = dayStart(nowMs) + rng.int(-400, 500) * DAY_MS
      const year = new Date(day).getUTCFullYear()
      const kind = rng.pick(['Presidential Election', 'Parliamentary Election', 'Snap Election'])
      const names = topic.names.slice(0, rng.int(2, topic.names.length))
      return {
        title: `${topic.subject} ${kind} ${year}`,
        description: `Who will win the ${year} ${topic.subject} ${kind.toLowerCase()}? Resolves by the official results.`,
        startMs: day - rng.int(60, 300) * DAY_MS,
        endMs: day,
        closed: day < nowMs,
        markets: names.map((n) => ({
          question: `Will ${n} win the ${year} ${topic.subject} ${kind.toLowerCase()}?`,
          groupItemTitle: n,
          outcomes: ['Yes', 'No'] as const,
          priceMilli: Math.max(1, Math.round(priceMilli(rng) / names.length)),
        })),
        negRisk: true,
        volumeMedian: 300_000,
      }
    }
    case 'macro': {
      const d = new Date(nowMs)
      const month = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + rng.int(-20, 3), rng.int(10, 20))
      const title =
        topic.subject === 'Fed'
          ? `Fed decision in ${monthYear(month)}?`
          : `US CPI month-over-month for ${monthYear(month)}?`
      return {
        title,
        description: `${title} Resolves by the official release.`,
        startMs: month - rng.int(20, 60) * DAY_MS,
        endMs: month,
        closed: month < nowMs,
        markets: topic.names.map((n) => ({
          question: `${topic.subject === 'Fed' ? 'Fed' : 'CPI'}: ${n} in ${monthYear(month)}?`,
          groupItemTitle: n,
          outcomes: ['Yes', 'No'] as const,
          priceMilli: Math.max(1, Math.round(priceMilli(rng) / topic.names.length)),
        })),
        negRisk: true,
        volumeMedian: 200_000,
      }
    }
    case 'tech': {
      const end = dayStart(nowMs) + rng.int(-300, 300) * DAY_MS
      const product = rng.pick(topic.names)
      const title = `Will ${topic.subject} release ${product} by ${monthDay(end)}, ${new Date(end).getUTCFullYear()}?`
      return {
        title,
        description: `Resolves "Yes" if ${topic.subject} publicly releases ${product} by the end date.`,
        startMs: end - rng.int(30, 300) * DAY_MS,
        endMs: end,
        closed: end < nowMs,
        markets: [{ question: title, outcomes: ['Yes', 'No'], priceMilli: priceMilli(rng) }],
        negRisk: false,
        volumeMedian: 50_000,
      }
    }
    case 'weather': {
      const day = dayStart(nowMs) + rng.int(-500, 2) * DAY_MS
      const base = rng.int(5, 28)
      const markets: MarketSpec[] = []
      for (let t = base - 3; t <= base + 3; t++) {
        const label = t === base - 3 ? `${t}°C or below` : t === base + 3 ? `${t}°C or higher` : `${t}°C`
        markets.push({
          question: `Will the highest temperature in ${topic.subject} be ${label} on ${monthDay(day)}?`,
          groupItemTitle: label,
          outcomes: ['Yes', 'No'],
          priceMilli: Math.max(1, Math.round(priceMilli(rng) / 7)),
        })
      }
      return {
        title: `Highest temperature in ${topic.subject} on ${monthDay(day)}?`,
        description: `Resolves by the highest temperature recorded in ${topic.subject} on ${monthDay(day)}.`,
        startMs: day - 2 * DAY_MS,
        endMs: day + 23 * HOUR_MS,
        closed: day + 23 * HOUR_MS < nowMs,
        markets,
        negRisk: true,
        eventDate: isoDate(day),
        volumeMedian: 8_000,
      }
    }
    case 'culture': {
      const end = dayStart(nowMs) + rng.int(-200, 90) * DAY_MS
      const movie = rng.pick(topic.names)
      const gross = rng.int(2, 25) * 10
      const title = `Will ${movie} gross over $${gross}M opening weekend?`
      return {
        title,
        description: `Resolves by Box Office Mojo's domestic opening weekend figure for ${movie}.`,
        startMs: end - rng.int(10, 60) * DAY_MS,
        endMs: end,
        closed: end < nowMs,
        markets: [{ question: title, outcomes: ['Yes', 'No'], priceMilli: priceMilli(rng) }],
        negRisk: false,
        volumeMedian: 20_000,
      }
    }
  }
}

/** 120000 → "120,000" (no locale data involved, so output never varies by host). */
function thousands(x: number): string {
  return String(Math.round(x)).replace(/\B(?=(\d{3})+$)/g, ',')
}

function pickTwo(rng: Random, names: readonly string[]): [string, string] {
  const a = rng.pick(names)
  let b = rng.pick(names)
  while (b === a) b = rng.pick(names)
  return [a, b]
}

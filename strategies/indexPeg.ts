/**
 * index-peg: a symmetric ladder around the index price. Both quotes lean against the position
 * (inventory skew), and the side that would take |position| past `positionCap` is trimmed, then
 * dropped. With a fresh best bid/offer (`maxBboAgeMs`) no quote crosses it. Quotes nothing without a
 * fresh index.
 */
import { z } from 'zod'
import { freshBbo } from '../src/strategy/book.ts'
import { buildLadder, freshIndexPrice, ladderMaxOrders } from '../src/strategy/ladder.ts'
import { ladderParamsShape } from '../src/strategy/params.ts'
import { ladderRevisitAt } from '../src/strategy/revisit.ts'
import { defineStrategy } from '../src/strategy/strategy.ts'

export const IndexPegParams = z.strictObject(ladderParamsShape)
export type IndexPegParams = z.infer<typeof IndexPegParams>

export const strategy = defineStrategy({
  name: 'index-peg',
  description:
    'Ladder of bids and asks at halfSpreadBps (+ levelSpacingBps per level) around the index, skewed against the position and capped at positionCap.',
  paramsSchema: IndexPegParams,
  quote(snapshot, params) {
    const index = freshIndexPrice(snapshot, params.maxIndexAgeMs)
    if (index === undefined) return []
    return buildLadder(snapshot, params, {
      centre: index,
      reference: index,
      bbo: freshBbo(snapshot, params.maxBboAgeMs),
    })
  },
  // Time changes the quotes only when the index or the best bid/offer turns stale.
  revisitAt: (snapshot, params) => ladderRevisitAt(snapshot, params),
  // Sizes by the position alone: a new account value re-plans nothing.
  reads: ['bbo'],
  maxOrders: (params) => ladderMaxOrders(params),
})

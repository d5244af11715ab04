/**
 * The event and market relations the spec names but does not show (external partners, best lines,
 * CLOB rewards), in the shapes and under the camelCase keys the official client reads
 * (`externalPartners`, `bestLines`, `clobRewards`). Required fields are the official client's.
 */
import { z } from 'zod'
import { DateTimeString, GammaId, NumberLike } from './fields.ts'

/** A partner (ESPN, CoinGecko, ...). */
export const PartnerSchema = z.looseObject({
  id: z.number().int(),
  slug: z.string(),
  name: z.string(),
  createdAt: DateTimeString.nullish(),
  updatedAt: DateTimeString.nullish(),
})
export type Partner = z.infer<typeof PartnerSchema>

/** An event's link to a partner's own id for it (attached when the listing names `partner_slug`). */
export const ExternalPartnerSchema = z.looseObject({
  id: z.number().int(),
  eventId: GammaId,
  partnerId: z.number().int(),
  externalId: z.string(),
  partner: PartnerSchema.nullish(),
  createdAt: DateTimeString.nullish(),
  updatedAt: DateTimeString.nullish(),
})
export type ExternalPartner = z.infer<typeof ExternalPartnerSchema>

/** One best line of a game (`include_best_lines`). */
export const BestLineSchema = z.looseObject({
  id: GammaId,
  lineType: z.string().nullish(),
  line: z.number().nullish(),
})
export type BestLine = z.infer<typeof BestLineSchema>

/** A market's liquidity-reward programme (listing form). Dates are calendar dates (`2026-06-01`). */
export const ClobRewardSchema = z.looseObject({
  id: GammaId,
  conditionId: z.string(),
  assetAddress: z.string(),
  rewardsAmount: NumberLike,
  rewardsDailyRate: NumberLike,
  startDate: z.string(),
  endDate: z.string().nullish(),
})
export type ClobReward = z.infer<typeof ClobRewardSchema>

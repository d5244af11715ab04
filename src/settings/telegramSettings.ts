/**
 * `telegram` in the configuration: the phone (src/bot/control/telegram.ts). It runs when the
 * environment has TELEGRAM_BOT_TOKEN (a secret, never in a file); only the chats listed here are
 * answered or told anything.
 */
import { z } from 'zod'

export const TelegramSettings = z.strictObject({
  /** The chats (user or group ids, as Telegram numbers them) allowed to command and to be told. */
  allowedChatIds: z.array(z.number().int()).default([]),
  /** Alerts at or above this severity are sent to every allowed chat. */
  minSeverity: z.enum(['info', 'warning', 'critical']).default('warning'),
  /** Also send every fill. */
  notifyFills: z.boolean().default(false),
  /** Send the day's summary at this UTC hour (null: never). */
  dailySummaryHourUtc: z.number().int().min(0).max(23).nullable().default(0),
  /** The Bot API's address (a local stand-in in tests). */
  apiRoot: z
    .string()
    .url()
    .refine((u) => /^https?:\/\//.test(u), { message: 'must be an http(s) URL' })
    .default('https://api.telegram.org'),
})
export type TelegramSettings = z.infer<typeof TelegramSettings>

/** What a Bot API token looks like (`123456:ABC…`); the message never echoes it. */
export const TELEGRAM_TOKEN_PATTERN = /^\d{3,20}:[A-Za-z0-9_-]{30,64}$/

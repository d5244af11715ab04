/**
 * The venue's notifications (the `notifications` channel and `GET /v1/account/notifications`), read as
 * the official bindings 0.10.0 type them (`PerpsNotificationSchema`: a union on `type`) and turned into
 * what the bot alerts with: a kind, a severity, a text built from the payload's own fields (the
 * payloads carry no message), and whether it is worth an alert at all: a position opened, increased
 * or reduced is one notification per fill, which the bot's own fills already record, so it is not.
 * A type this version does not know is read from the common message fields, so a new kind still
 * reaches the operator. Decimal fields follow the one rule (common.ts): a blank is unknown.
 */
import { z } from 'zod'
import { OptionalDecimal, TimestampMs } from './common.ts'
import { tolerantArray } from './tolerantArray.ts'

export const NOTIFICATION_SEVERITIES = ['info', 'warning', 'critical'] as const
export type NotificationSeverity = (typeof NOTIFICATION_SEVERITIES)[number]

/** A notification as the bot reads it: the venue's own warning, typed for an alert. */
export interface VenueNotification {
  id: string | number | undefined
  /** The venue's type ('notification' when it names none). */
  kind: string
  severity: NotificationSeverity
  text: string
  ts: number | undefined
  /** False for the per-fill position notifications (opened, increased, reduced): logged, not alerted. */
  alert: boolean
  /** The payload's own fields, for the alert's details (strings, numbers, flags only). */
  details: Record<string, string | number | boolean>
}

/** Position notifications the venue sends once per fill: the bot's fills already say the same. */
export const PER_FILL_NOTIFICATIONS: ReadonlySet<string> = new Set([
  'position_opened',
  'position_increased',
  'position_reduced',
])

function severityOf(kind: string, level: string | undefined): NotificationSeverity {
  if (kind === 'position_liquidated' || kind === 'liquidation_warning') return 'critical'
  if (kind === 'limit_order_canceled') return 'warning'
  const l = (level ?? kind).toLowerCase()
  if (/crit|fatal|emerg|alert|liquidat/.test(l)) return 'critical'
  if (/warn|error|risk|margin/.test(l)) return 'warning'
  return 'info'
}

const Side = z.string().optional()

const NotificationItem = z.looseObject({
  id: z.union([z.number(), z.string()]).optional(),
  type: z.string().optional(),
  kind: z.string().optional(),
  category: z.string().optional(),
  level: z.string().optional(),
  severity: z.string().optional(),
  title: z.string().optional(),
  message: z.string().optional(),
  msg: z.string().optional(),
  text: z.string().optional(),
  ts: z.number().int().optional(),
  timestamp: z.number().int().optional(),
  // bindings 0.10.0 fields (every type's, all optional here: the type says which to expect)
  instrument_id: z.number().int().nonnegative().nullish(),
  side: Side,
  size: OptionalDecimal,
  avg_price: OptionalDecimal,
  price: OptionalDecimal,
  pnl: OptionalDecimal,
  leverage: z.number().optional(),
  order_type: z.string().optional(),
  margin_type: z.string().optional(),
  mark_price: OptionalDecimal,
  liq_price: OptionalDecimal,
  affected_instruments: z.array(z.number().int()).optional(),
  size_closed: OptionalDecimal,
  via_backstop: z.boolean().optional(),
})
type NotificationItem = z.infer<typeof NotificationItem>

const on = (n: NotificationItem): string =>
  n.instrument_id === undefined || n.instrument_id === null ? '' : ` on instrument ${n.instrument_id}`
const or = (v: string | undefined): string => v ?? 'unknown'

/** The payload's fields in words, per official type (the venue sends no message). */
function describe(kind: string, n: NotificationItem): string | undefined {
  switch (kind) {
    case 'position_opened':
    case 'position_increased':
    case 'position_reduced':
      return `${kind.replace('_', ' ')}${on(n)}: ${n.side ?? ''} ${or(n.size)} at ${or(n.avg_price)} average${n.leverage === undefined ? '' : `, ${n.leverage}x`}${n.order_type === undefined ? '' : ` (${n.order_type})`}`
    case 'position_closed':
      return `position closed${on(n)}: ${n.side ?? ''} ${or(n.size)} at ${or(n.avg_price)} average, PnL ${or(n.pnl)} USD`
    case 'limit_order_canceled':
      return `the venue cancelled a limit order${on(n)}: ${n.side ?? ''} ${or(n.size)} at ${or(n.price)}`
    case 'liquidation_warning':
      return n.margin_type === 'cross'
        ? `cross-margin liquidation warning: mark ${or(n.mark_price)}, instruments ${(n.affected_instruments ?? []).join(', ') || 'unknown'}`
        : `isolated liquidation warning${on(n)}: mark ${or(n.mark_price)}, liquidation price ${or(n.liq_price)}`
    case 'position_liquidated':
      return `position liquidated${on(n)}: ${n.side ?? ''} ${or(n.size_closed)} closed (${n.margin_type ?? 'unknown'} margin${n.via_backstop === true ? ', via the backstop' : ''}), PnL ${n.pnl ?? 'unknown'} USD`
    default:
      return undefined
  }
}

const DETAIL_KEYS = [
  'instrument_id',
  'side',
  'size',
  'avg_price',
  'price',
  'pnl',
  'leverage',
  'order_type',
  'margin_type',
  'mark_price',
  'liq_price',
  'size_closed',
  'via_backstop',
] as const

function detailsOf(n: NotificationItem): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {}
  for (const k of DETAIL_KEYS) {
    const v = n[k]
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[k] = v
  }
  if (n.affected_instruments !== undefined) out.affected_instruments = n.affected_instruments.join(',')
  return out
}

/** One notification (the channel's `data`, a REST entry's `notification`). */
export const Notification = NotificationItem.transform((n): VenueNotification => {
  const kind = (n.type ?? n.kind ?? n.category ?? 'notification').slice(0, 64)
  const own = [n.title, n.message ?? n.msg ?? n.text].filter((t) => t !== undefined && t !== '').join(': ')
  return {
    id: n.id,
    kind,
    severity: severityOf(kind, n.level ?? n.severity),
    text: (describe(kind, n) ?? own).replace(/\s+/g, ' ').trim().slice(0, 500),
    ts: n.ts ?? n.timestamp,
    alert: !PER_FILL_NOTIFICATIONS.has(kind),
    details: detailsOf(n),
  }
})

/** `notifications` push data: one notification (bindings 0.10.0), or an array of them. */
export const NotificationsPush = z.union([z.array(Notification), Notification.transform((n) => [n])])
export type NotificationsPush = z.infer<typeof NotificationsPush>

/**
 * The channel's backpressure frame: notifications were dropped, `sq` the newest of them. It has no
 * `data`; the stream treats it as a gap (the REST read catches up), never as a malformed push.
 */
export const NotificationsResyncFrame = z.looseObject({
  ch: z.literal('notifications'),
  ts: TimestampMs,
  sq: z.number().int().nonnegative(),
  type: z.literal('resync'),
})
export type NotificationsResyncFrame = z.infer<typeof NotificationsResyncFrame>

/** `GET /v1/account/notifications`: a page of entries, newest first, with the unread count and cursor. */
export const NotificationsPage = z.looseObject({
  items: tolerantArray(
    z.looseObject({
      notification: Notification,
      read_at: TimestampMs.nullish(),
      ts: TimestampMs,
    }),
  ),
  unread: z.number().int().nonnegative(),
  durable_source_seq: z.number().int().nonnegative().optional(),
  has_more: z.boolean(),
  next_cursor: z.string().nullish(),
})
export type NotificationsPage = z.infer<typeof NotificationsPage>

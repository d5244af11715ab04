/**
 * GET /v1/account/notifications: a page of the account's notifications, newest first (bindings
 * 0.10.0), with the unread count and the cursor of the next page (header-authenticated).
 */
import { NotificationsPage } from '../schemas/notifications.ts'
import type { PerpsClientContext } from './context.ts'
import { type PerpsReadOptions, perpsRead } from './perpsCall.ts'

export interface GetNotificationsParams {
  /** The previous page's `next_cursor`. */
  cursor?: string | undefined
  limit?: number | undefined
}

/** @throws {ConfigError} no credentials; the client's usual read errors after. */
export async function getNotifications(
  ctx: PerpsClientContext,
  params: GetNotificationsParams = {},
  options: PerpsReadOptions = {},
): Promise<NotificationsPage> {
  const query = new URLSearchParams()
  if (params.cursor !== undefined) query.set('cursor', params.cursor)
  if (params.limit !== undefined)
    query.set('limit', String(Math.max(1, Math.min(100, Math.floor(params.limit)))))
  return perpsRead(ctx, {
    endpoint: 'getNotifications',
    auth: true,
    query,
    schema: NotificationsPage,
    signal: options.signal,
    retry: options.retry,
  })
}

/**
 * Who may read the ops server. On loopback only local processes reach it; bound anywhere else, every
 * endpoint but `/livez` wants `Authorization: Bearer <PERPBOT_OPS_TOKEN>` (`/status` shows the proxy
 * address, orders and margin). Tokens are compared in constant time over their SHA-256 digests, so
 * neither the content nor the length leaks through timing. The dashboard (`/`, `/events`, `/assets/`)
 * also takes it from a cookie, set when the page is opened once as `/?token=…` (see opsServer.ts).
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import { isIP } from 'node:net'

/** The environment variable holding the ops token (read with the other secrets in src/settings). */
export const OPS_TOKEN_ENV = 'PERPBOT_OPS_TOKEN'

/** Shortest token accepted: 16 characters (e.g. `openssl rand -hex 32` gives 64). */
export const MIN_OPS_TOKEN_LENGTH = 16

/** True for addresses only this host can reach: 127.0.0.0/8, ::1 and `localhost`. */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
  if (h === 'localhost') return true
  if (isIP(h) === 4) return h.startsWith('127.')
  if (isIP(h) === 6) return h === '::1' || h === '0:0:0:0:0:0:0:1' || h.startsWith('::ffff:127.')
  return false
}

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest()

/** Builds the check of a presented token (any source) against the expected one. */
export function tokenChecker(token: string): (candidate: string | undefined) => boolean {
  const expected = digest(token)
  // Compare something even without a candidate, so a missing one costs the same as a wrong one.
  return (candidate) => timingSafeEqual(digest(candidate ?? ''), expected) && candidate !== undefined
}

/** Builds the check for an `Authorization` header value against the expected token. */
export function bearerChecker(token: string): (authorization: string | undefined) => boolean {
  const matches = tokenChecker(token)
  return (authorization) => matches(/^Bearer +(\S+)\s*$/i.exec(authorization ?? '')?.[1])
}

/**
 * The dashboard's cookie: a browser's EventSource cannot send an `Authorization` header, so the page
 * (opened once as `/?token=…`) gets the token as an HttpOnly, SameSite=Strict cookie instead.
 */
export const OPS_TOKEN_COOKIE = 'perpbot_ops_token'

/** The ops token cookie's value from a `Cookie` header, if present. */
export function tokenFromCookie(cookie: string | undefined): string | undefined {
  for (const part of (cookie ?? '').split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === OPS_TOKEN_COOKIE) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim())
      } catch {
        return undefined
      }
    }
  }
  return undefined
}

/** The `Set-Cookie` value carrying the token (no `Secure`: the ops server speaks plain HTTP). */
export const tokenCookie = (token: string): string =>
  `${OPS_TOKEN_COOKIE}=${encodeURIComponent(token)}; Path=/; HttpOnly; SameSite=Strict`

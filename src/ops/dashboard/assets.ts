/**
 * The dashboard's static files: uPlot's script and stylesheet, read once from the installed package
 * (no CDN, no build step), and the page itself.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { DASHBOARD_HTML, DASHBOARD_SCRIPT } from './page.ts'

export interface StaticReply {
  status: number
  contentType: string
  body: string
  headers?: Record<string, string> | undefined
}

const require = createRequire(import.meta.url)

const ASSETS: Record<string, { file: string; contentType: string }> = {
  '/assets/uplot.js': { file: 'uplot/dist/uPlot.iife.min.js', contentType: 'text/javascript; charset=utf-8' },
  '/assets/uplot.css': { file: 'uplot/dist/uPlot.min.css', contentType: 'text/css; charset=utf-8' },
}

const cache = new Map<string, string>()

function asset(path: string): StaticReply | undefined {
  const a = ASSETS[path]
  if (!a) return undefined
  let body = cache.get(path)
  if (body === undefined) {
    body = readFileSync(require.resolve(a.file), 'utf8')
    cache.set(path, body)
  }
  // Versioned by the package lock; an hour of caching spares a reload the 50 kB.
  return { status: 200, contentType: a.contentType, body, headers: { 'cache-control': 'max-age=3600' } }
}

/** The page's one inline script is allowed by its hash, nothing else inline runs. */
const scriptHash = createHash('sha256').update(DASHBOARD_SCRIPT, 'utf8').digest('base64')
const CSP = [
  "default-src 'none'",
  `script-src 'self' 'sha256-${scriptHash}'`,
  "style-src 'self' 'unsafe-inline'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'none'",
].join('; ')

/** `/`, `/assets/uplot.js`, `/assets/uplot.css`; undefined for any other path. */
export function dashboardFile(path: string): StaticReply | undefined {
  if (path === '/')
    return {
      status: 200,
      contentType: 'text/html; charset=utf-8',
      body: DASHBOARD_HTML,
      headers: { 'content-security-policy': CSP, 'referrer-policy': 'no-referrer' },
    }
  return asset(path)
}

export const isDashboardPath = (path: string): boolean =>
  path === '/' || path === '/events' || Object.hasOwn(ASSETS, path)

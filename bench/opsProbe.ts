/**
 * Reads what the ops server serves an operator (`/status`, `/metrics`, the dashboard page at `/` and a
 * bounded slice of its server-sent events when it has them) and feeds every byte to the secrets scan.
 * Loopback only; each read is bounded in time and size.
 */
import type { SecretsScanner } from './secretsScan.ts'

const MAX_BYTES = 4 * 1024 * 1024

/** GET `url`; the body (up to MAX_BYTES) or undefined when it fails or is not 200. */
async function get(url: string, timeoutMs: number): Promise<{ type: string; body: string } | undefined> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) })
    if (res.status !== 200) {
      await res.body?.cancel()
      return undefined
    }
    const body = await res.text()
    return { type: res.headers.get('content-type') ?? '', body: body.slice(0, MAX_BYTES) }
  } catch {
    return undefined
  }
}

/** Reads an event stream for `ms` (or MAX_BYTES), scanning chunks as they come. Bytes read. */
async function readStream(url: string, ms: number, scan: (chunk: string) => void): Promise<number> {
  const ctl = new AbortController()
  const timer = setTimeout(() => ctl.abort(), ms)
  let n = 0
  try {
    const res = await fetch(url, { signal: ctl.signal, headers: { accept: 'text/event-stream' } })
    if (res.status !== 200 || res.body === null) return 0
    const decoder = new TextDecoder()
    for await (const chunk of res.body) {
      const text = decoder.decode(chunk, { stream: true })
      n += text.length
      scan(text)
      if (n > MAX_BYTES) break
    }
  } catch {
    // The abort ends the read; anything else just ends this probe.
  } finally {
    clearTimeout(timer)
    ctl.abort()
  }
  return n
}

export interface OpsProbeResult {
  status: boolean
  metrics: boolean
  dashboard: boolean
  events: number
}

/**
 * One probe of the ops server at `base`: every payload goes through `scanner` under `ops:<path>`.
 * The dashboard's event stream is found in the page (`EventSource('…')`) and read for `sseMs`.
 */
export async function probeOps(
  base: string,
  scanner: SecretsScanner,
  sseMs = 1_500,
): Promise<OpsProbeResult> {
  const out: OpsProbeResult = { status: false, metrics: false, dashboard: false, events: 0 }
  for (const path of ['/status', '/metrics', '/readyz'] as const) {
    const r = await get(`${base}${path}`, 5_000)
    if (r === undefined) continue
    scanner.scan(`ops${path}`, r.body)
    scanner.end(`ops${path}`)
    if (path === '/status') out.status = true
    if (path === '/metrics') out.metrics = true
  }
  const page = await get(`${base}/`, 5_000)
  if (page?.type.includes('html')) {
    out.dashboard = true
    scanner.scan('dashboard:/', page.body)
    scanner.end('dashboard:/')
    const sse = /EventSource\(\s*['"`]([^'"`]+)['"`]/.exec(page.body)?.[1]
    if (sse?.startsWith('/')) {
      out.events = await readStream(`${base}${sse}`, sseMs, (c) => scanner.scan('dashboard:sse', c))
      scanner.end('dashboard:sse')
    }
  }
  return out
}

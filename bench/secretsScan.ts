/**
 * Secrets scan for the soak and chaos runs: every byte the runs produce for an operator (log lines,
 * alerts, webhook payloads, metrics text, /status JSON, dashboard payloads) is fed through `scan` as
 * it streams by; nothing is stored but a short tail per source (a needle may straddle two chunks), so
 * memory stays bounded however long the run.
 *
 * Needles are the secrets in every encoding the code could leak them in: as given, JSON-escaped,
 * URL-encoded, and for hex values with and without `0x`, lower and upper case, decimal, base64 and
 * base64url of the bytes (padded and not).
 */

/** A found secret: where, and which secret (its label, never its value). */
export interface SecretHit {
  source: string
  secret: string
  encoding: string
}

export interface ScanSummary {
  bytes: number
  chunks: number
  hits: readonly SecretHit[]
  /** Bytes per source kind (log, alert, metrics, …). */
  bySource: ReadonlyMap<string, number>
}

interface Needle {
  text: string
  secret: string
  encoding: string
}

/** Shorter forms would match innocent text (the logger's SecretBag uses the same floor). */
const MIN_NEEDLE = 16
const MAX_HITS = 50

/** Every spelling of `value` worth looking for, with the name of its encoding. */
export function encodingsOf(value: string): { text: string; encoding: string }[] {
  const out: { text: string; encoding: string }[] = [
    { text: value, encoding: 'plain' },
    { text: JSON.stringify(value).slice(1, -1), encoding: 'json-escaped' },
    { text: encodeURIComponent(value), encoding: 'url-encoded' },
    { text: encodeURIComponent(encodeURIComponent(value)), encoding: 'url-encoded twice' },
    { text: Buffer.from(value, 'utf8').toString('base64').replace(/=+$/, ''), encoding: 'base64 of text' },
  ]
  const hex = /^(0x)?([0-9a-fA-F]{16,})$/.exec(value)?.[2]
  if (hex !== undefined) {
    out.push(
      { text: hex.toLowerCase(), encoding: 'hex' },
      { text: hex.toUpperCase(), encoding: 'hex upper-case' },
      { text: `0x${hex.toUpperCase()}`, encoding: '0x hex upper-case' },
      { text: BigInt(`0x${hex}`).toString(), encoding: 'decimal' },
    )
    if (hex.length % 2 === 0) {
      const bytes = Buffer.from(hex, 'hex')
      out.push(
        { text: bytes.toString('base64').replace(/=+$/, ''), encoding: 'base64' },
        { text: bytes.toString('base64url'), encoding: 'base64url' },
      )
    }
  }
  const seen = new Set<string>()
  return out.filter((n) => n.text.length >= MIN_NEEDLE && !seen.has(n.text) && seen.add(n.text))
}

/**
 * A streaming scanner over named secrets. `scan(source, chunk)` may be called with arbitrary pieces
 * of a stream: a needle split between two consecutive chunks of the same source is still found.
 */
export class SecretsScanner {
  readonly #needles: Needle[] = []
  #maxLen = 0
  readonly #tails = new Map<string, string>()
  readonly #hits: SecretHit[] = []
  readonly #bySource = new Map<string, number>()
  #bytes = 0
  #chunks = 0

  constructor(secrets: Readonly<Record<string, string | undefined>> = {}) {
    for (const [label, value] of Object.entries(secrets)) this.add(label, value)
  }

  /** Adds a secret under a label (the label, not the value, is what a hit reports). */
  add(label: string, value: string | undefined): void {
    if (value === undefined || value.length < 8) return
    for (const e of encodingsOf(value)) {
      if (this.#needles.some((n) => n.text === e.text)) continue
      this.#needles.push({ text: e.text, secret: label, encoding: e.encoding })
      this.#maxLen = Math.max(this.#maxLen, e.text.length)
    }
    this.#needles.sort((a, b) => b.text.length - a.text.length)
  }

  get needleCount(): number {
    return this.#needles.length
  }

  /**
   * Scans one chunk of the stream `source` (e.g. `log`, `alert`, `metrics`); the kind is the part
   * before the first `:` so figures group by kind.
   */
  scan(source: string, chunk: string): void {
    this.#bytes += Buffer.byteLength(chunk)
    this.#chunks += 1
    const kind = source.split(':')[0] ?? source
    this.#bySource.set(kind, (this.#bySource.get(kind) ?? 0) + Buffer.byteLength(chunk))
    const tail = this.#tails.get(source) ?? ''
    const text = tail + chunk
    // One hit per secret per chunk: the longest matching form (0x-hex also contains the bare hex).
    const found = new Set<string>()
    for (const n of this.#needles) {
      if (found.has(n.secret)) continue
      const at = text.indexOf(n.text)
      // A match wholly inside the tail was reported with the previous chunk.
      if (at >= 0 && at + n.text.length > tail.length) {
        found.add(n.secret)
        if (this.#hits.length < MAX_HITS) this.#hits.push({ source, secret: n.secret, encoding: n.encoding })
      }
    }
    this.#tails.set(source, text.slice(-(this.#maxLen - 1)))
  }

  /** Forgets a finished stream's tail (a source that will not continue). */
  end(source: string): void {
    this.#tails.delete(source)
  }

  summary(): ScanSummary {
    return {
      bytes: this.#bytes,
      chunks: this.#chunks,
      hits: [...this.#hits],
      bySource: new Map(this.#bySource),
    }
  }
}

/** One line for the run's output: bytes scanned by kind, needles, hits. */
export function formatScan(s: ScanSummary, needles: number): string {
  const kinds = [...s.bySource]
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${formatBytes(v)}`)
    .join(', ')
  const hits =
    s.hits.length === 0
      ? '0 hits'
      : `${s.hits.length} hit(s): ${s.hits
          .slice(0, 5)
          .map((h) => `${h.secret} (${h.encoding}) in ${h.source}`)
          .join('; ')}`
  return `${formatBytes(s.bytes)} in ${s.chunks} chunks (${kinds}) against ${needles} needles: ${hits}`
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MiB`
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KiB`
  return `${n} B`
}

/**
 * Progress of a counted job on stderr (downloads, sweeps): on a TTY one line redrawn in place at most
 * every 100 ms; otherwise a plain line every `plainEveryMs`. Shows a bar, done of total, and an
 * estimate of the time left from the rate so far.
 */
export interface CountProgressOptions {
  write: (text: string) => void
  isTty: boolean
  /** Wall clock in ms (injected for tests). */
  now: () => number
  unit: string
  plainEveryMs?: number | undefined
}

export interface CountProgress {
  update(done: number, total: number): void
  done(done: number, total: number): void
}

export function etaText(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '?'
  const s = Math.round(ms / 1000)
  return s >= 3600
    ? `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`
    : s >= 60
      ? `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`
      : `${s}s`
}

export function countLine(done: number, total: number, elapsedMs: number, unit: string, width = 24): string {
  const share = total <= 0 ? 1 : Math.min(1, done / total)
  const filled = Math.round(share * width)
  const eta = done > 0 ? (elapsedMs / done) * (total - done) : Number.NaN
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(share * 100).toFixed(1).padStart(5)} %  ${done}/${total} ${unit}  ETA ${etaText(eta)}`
}

export function createCountProgress(o: CountProgressOptions): CountProgress {
  const started = o.now()
  const every = o.isTty ? 100 : (o.plainEveryMs ?? 10_000)
  let last = started
  const line = (d: number, t: number): string => countLine(d, t, o.now() - started, o.unit)
  return {
    update(d, t) {
      const now = o.now()
      if (now - last < every) return
      last = now
      o.write(o.isTty ? `\r${line(d, t)}\x1b[K` : `${line(d, t)}\n`)
    },
    done(d, t) {
      o.write(o.isTty ? `\r${line(d, t)}\x1b[K\n` : `${line(d, t)}\n`)
    },
  }
}

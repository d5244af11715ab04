/**
 * The simulation's progress on the terminal (stderr): on a TTY one line redrawn in place at most every
 * 100 ms; otherwise a plain line every `plainEveryMs` of wall time. Shows virtual time done and the
 * speed (virtual seconds per wall second). Wall time is used here only, never in the report.
 */

export interface ProgressOptions {
  write: (text: string) => void
  isTty: boolean
  /** Wall clock in ms (injected for tests). */
  now: () => number
  /** Plain-line period off a TTY, wall ms. Default 10 s. */
  plainEveryMs?: number | undefined
  width?: number | undefined
}

export interface Progress {
  update(doneMs: number, totalMs: number): void
  /** Final line (always written). */
  done(doneMs: number, totalMs: number): void
}

/** "3h 05m" / "12m 30s" / "45s" for a virtual duration. */
export function formatDuration(ms: number): string {
  const s = Math.floor(ms / 1000)
  const h = Math.floor(s / 3600)
  const m = Math.floor((s % 3600) / 60)
  if (h > 0) return `${h}h ${String(m).padStart(2, '0')}m`
  if (m > 0) return `${m}m ${String(s % 60).padStart(2, '0')}s`
  return `${s}s`
}

/** One progress line: bar, share, virtual time done of total, speed. */
export function progressLine(doneMs: number, totalMs: number, wallMs: number, width = 24): string {
  const share = totalMs <= 0 ? 1 : Math.min(1, Math.max(0, doneMs / totalMs))
  const filled = Math.round(share * width)
  const speed = wallMs > 0 ? doneMs / wallMs : 0
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(share * 100).toFixed(1).padStart(5)} %  ${formatDuration(doneMs)} / ${formatDuration(totalMs)} virtual  ${speed.toFixed(0)}× real time`
}

export function createProgress(o: ProgressOptions): Progress {
  const started = o.now()
  const every = o.isTty ? 100 : (o.plainEveryMs ?? 10_000)
  let last = started
  const line = (done: number, total: number): string => progressLine(done, total, o.now() - started, o.width)
  return {
    update(done, total) {
      const now = o.now()
      if (now - last < every) return
      last = now
      o.write(o.isTty ? `\r${line(done, total)}\x1b[K` : `${line(done, total)}\n`)
    },
    done(done, total) {
      o.write(o.isTty ? `\r${line(done, total)}\x1b[K\n` : `${line(done, total)}\n`)
    },
  }
}

/**
 * A reader that goes away (`perpbot events | head -1`) is a normal end, not a crash: the first EPIPE
 * on stdout stops further writes, aborts the command's signal and, for a command that only prints,
 * ends the process with 0 and no stack trace. The bot (`run`) keeps running: its exit policy matters
 * more than its output.
 */
import type { Writable } from 'node:stream'

export interface PipeGuard {
  /** Writes a line unless the reader has gone. */
  write(line: string): void
  readonly broken: boolean
}

export function guardBrokenPipe(o: {
  stream: Writable
  /** Called once, on the first EPIPE. */
  onBroken: () => void
}): PipeGuard {
  let broken = false
  o.stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE' && e.code !== 'ERR_STREAM_DESTROYED') throw e
    if (broken) return
    broken = true
    o.onBroken()
  })
  return {
    write(line) {
      if (!broken && !o.stream.destroyed) o.stream.write(`${line}\n`)
    },
    get broken() {
      return broken
    },
  }
}

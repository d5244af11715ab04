/**
 * Notices that the process that started the bot is gone. `npx perpbot run` runs the bot under
 * `sh -c` under `npm exec`: SIGTERM to npm ends npm (and the shell) but not the bot, which is
 * re-parented and quotes on with nobody to stop it. The watch remembers the ancestors at start (up to
 * the first that is init or a subreaper we cannot leave: pid 1) with their start times, and reports
 * the first one that is gone (or whose pid now names another process) so `run` stops by its exit
 * policy. Under a supervisor (systemd, tini in Docker) the parent is pid 1 and there is nothing to watch.
 *
 * Linux reads `/proc/<pid>/stat`; elsewhere only the parent is watched, through `process.ppid`.
 */
import { readFileSync } from 'node:fs'

/** A process as `/proc/<pid>/stat` shows it: its parent and its start time (clock ticks since boot). */
export interface ProcessStat {
  pid: number
  ppid: number
  startTime: string
  /** The command, for the log line. */
  name: string
}

/** Reads one process's stat; undefined when it is gone or unreadable. */
export type StatReader = (pid: number) => ProcessStat | undefined

/** The most ancestors watched: the shell and npm above `npx`, and one more. */
export const MAX_WATCHED_ANCESTORS = 3

/** `/proc/<pid>/stat` parsed (the command is in parentheses and may hold spaces and parentheses). */
export function parseProcStat(pid: number, text: string): ProcessStat | undefined {
  const open = text.indexOf('(')
  const close = text.lastIndexOf(')')
  if (open < 0 || close < open) return undefined
  // After the command: state (3), ppid (4), …, starttime (22): index 0 is the state.
  const fields = text
    .slice(close + 2)
    .trim()
    .split(/\s+/)
  const ppid = Number(fields[1])
  const startTime = fields[19]
  if (!Number.isInteger(ppid) || startTime === undefined) return undefined
  return { pid, ppid, startTime, name: text.slice(open + 1, close) }
}

export const procStatReader: StatReader = (pid) => {
  try {
    return parseProcStat(pid, readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return undefined
  }
}

/** The ancestors of `pid` below pid 1, nearest first, at most `MAX_WATCHED_ANCESTORS`. */
export function ancestorsOf(pid: number, read: StatReader): ProcessStat[] {
  const out: ProcessStat[] = []
  let next = read(pid)?.ppid
  while (next !== undefined && next > 1 && out.length < MAX_WATCHED_ANCESTORS) {
    const stat = read(next)
    if (stat === undefined) break
    out.push(stat)
    next = stat.ppid
  }
  return out
}

/** The first remembered ancestor that is gone (or replaced by another process on its pid), if any. */
export function goneAncestor(ancestors: readonly ProcessStat[], read: StatReader): ProcessStat | undefined {
  return ancestors.find((a) => read(a.pid)?.startTime !== a.startTime)
}

export interface ParentWatch {
  /** What is watched, for the start line. */
  readonly watched: readonly ProcessStat[]
  stop(): void
}

/**
 * Checks every `intervalMs` (wall time, unref'd) and calls `onGone` once with the first ancestor gone.
 * Without /proc, watches `ppid()` changing from its value at start (unless that is 1).
 */
export function watchParent(o: {
  pid: number
  ppid: () => number
  onGone: (gone: { pid: number; name: string }) => void
  read?: StatReader | undefined
  intervalMs?: number | undefined
}): ParentWatch {
  const read = o.read ?? procStatReader
  const viaProc = read(o.pid) !== undefined
  const watched = viaProc ? ancestorsOf(o.pid, read) : []
  const firstParent = o.ppid()
  const check = (): { pid: number; name: string } | undefined => {
    if (viaProc) return goneAncestor(watched, read)
    return firstParent > 1 && o.ppid() !== firstParent ? { pid: firstParent, name: 'parent' } : undefined
  }
  if (viaProc ? watched.length === 0 : firstParent <= 1) return { watched, stop: () => undefined }
  const timer = setInterval(() => {
    const gone = check()
    if (gone === undefined) return
    clearInterval(timer)
    o.onGone(gone)
  }, o.intervalMs ?? 1_000)
  timer.unref()
  return { watched, stop: () => clearInterval(timer) }
}

/**
 * Where the tick-to-trade benches' processes run (issue 36, point 4). The bench hosts the venue (the
 * mock) on the bot's own machine, and on this workplace's 2-vCPU VM the kernel packs runnable threads
 * onto as few vCPUs as it can (its command line sets `sched_vcpu_pack`): sampled every millisecond
 * while both main threads were runnable, the bot's and the mock's shared one vCPU 77 % of the time,
 * each waiting out the other's slice. A venue runs elsewhere, and a bot that must answer in
 * milliseconds gets its event loop a core of its own; `apart` (the default where it can be applied)
 * places them so:
 *   - the venue (every thread of the mock's process) on the last CPU;
 *   - the bot's event loop (its main thread only, after its warm-up) on the others;
 *   - the bot's other threads (V8's GC and compiler helpers, the journal's worker, libuv's pool) on any
 *     CPU at idle priority (SCHED_IDLE): they fill idle time and never preempt either main thread.
 * `shared` leaves every thread where the kernel puts it (the same-run baseline). Applied with `taskset`
 * and `chrt` (util-linux); where either is missing, on one CPU or off Linux, the bench says so and
 * runs shared. Bench-only.
 */
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { flag } from './stats.ts'

export type Placement = 'apart' | 'shared'

/**
 * The CPUs this process may use, read once at load: before `placeEventLoop` pins this very process's
 * main thread (availableParallelism() reads the calling thread's affinity).
 */
const CPUS = availableParallelism()
const lastCpu = (): number => CPUS - 1

/** Why `apart` cannot be applied here, or undefined when it can. */
function apartUnavailable(): string | undefined {
  if (process.platform !== 'linux') return `not on Linux (${process.platform})`
  if (CPUS < 2) return 'one CPU'
  for (const tool of ['taskset', 'chrt'])
    try {
      execFileSync(tool, ['--version'], { stdio: 'ignore' })
    } catch {
      return `no ${tool} (util-linux)`
    }
  return undefined
}

/** `--placement apart|shared` (default `apart` where it can be applied); warns when it cannot. */
export function placementFlag(argv: readonly string[] = process.argv.slice(2)): Placement {
  const given = flag('placement', argv)
  if (given !== undefined && given !== 'apart' && given !== 'shared')
    throw new Error(`--placement takes apart or shared, not ${given}`)
  if (given === 'shared') return 'shared'
  const why = apartUnavailable()
  if (why === undefined) return 'apart'
  console.error(`placement: shared (apart needs Linux, 2 CPUs, taskset and chrt: ${why})`)
  return 'shared'
}

/** Every thread of `pid` (the venue's process) on the last CPU. */
export function placeVenue(pid: number): void {
  execFileSync('taskset', ['-a', '-p', '-c', String(lastCpu()), String(pid)], { stdio: 'ignore' })
}

/** Child processes of `pid` (the recording's writer), from each of its threads' `children`. */
function childrenOf(pid: number): string[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((tid) => {
    try {
      return readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8')
        .split(' ')
        .filter((c) => c !== '')
    } catch {
      return []
    }
  })
}

/** SCHED_IDLE for `tid` (with `all`: every thread of that process); false when it is gone. */
function idlePriority(tid: string, all = false): boolean {
  try {
    execFileSync('chrt', [...(all ? ['-a'] : []), '--idle', '-p', '0', tid], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/**
 * The main thread of `pid` (the bot) on every CPU but the last; its other threads and its child
 * processes (those alive now: call it after the warm-up, when the bot has started them) at idle
 * priority on any CPU. Returns how many threads and processes went to idle priority.
 */
export function placeEventLoop(pid: number): number {
  const others = lastCpu() === 1 ? '0' : `0-${lastCpu() - 1}`
  execFileSync('taskset', ['-p', '-c', others, String(pid)], { stdio: 'ignore' })
  let idle = 0
  for (const tid of readdirSync(`/proc/${pid}/task`)) if (tid !== String(pid) && idlePriority(tid)) idle++
  for (const child of childrenOf(pid)) if (idlePriority(child, true)) idle++
  return idle
}

/** The summary line's words for a placement (`idleThreads`: from `placeEventLoop`). */
export function placementText(placement: Placement, idleThreads?: number): string {
  if (placement === 'shared') return 'placement shared (every thread where the kernel puts it)'
  const cpus = CPUS
  return `placement apart (the venue on CPU ${cpus - 1}, the bot's event loop on CPU ${cpus === 2 ? '0' : `0-${cpus - 2}`}, its other ${idleThreads ?? '?'} threads and processes at idle priority)`
}

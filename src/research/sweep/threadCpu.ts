/**
 * CPU time of the calling thread, in ms: a worker's own work, apart from the other threads of the
 * process and from the time the scheduler gave to other processes. Linux reads `/proc/thread-self/stat`
 * (user + system clock ticks, 100 per second); elsewhere the process's CPU time stands in for it.
 */
import { readFileSync } from 'node:fs'

const TICKS_PER_SECOND = 100

export function threadCpuMs(): number {
  try {
    const stat = readFileSync('/proc/thread-self/stat', 'utf8')
    // Fields after the command's closing parenthesis; utime and stime are the 14th and 15th fields.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND
  } catch {
    const u = process.cpuUsage()
    return (u.user + u.system) / 1000
  }
}

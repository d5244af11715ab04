/**
 * The parent watch's pure parts on a made-up process table, and the watch on fake timers: an ancestor
 * gone (or its pid reused by another process) is reported once; under a supervisor (parent pid 1)
 * nothing is watched.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  ancestorsOf,
  goneAncestor,
  type ProcessStat,
  parseProcStat,
  type StatReader,
  watchParent,
} from '../../src/cli/parentWatch.ts'

const stat = (pid: number, ppid: number, name: string, startTime = `${pid}00`): ProcessStat => ({
  pid,
  ppid,
  name,
  startTime,
})

function table(rows: ProcessStat[]): { read: StatReader; kill(pid: number): void; reuse(pid: number): void } {
  const byPid = new Map(rows.map((r) => [r.pid, r]))
  return {
    read: (pid) => byPid.get(pid),
    kill: (pid) => void byPid.delete(pid),
    reuse: (pid) => {
      const r = byPid.get(pid)
      if (r) byPid.set(pid, { ...r, startTime: `${r.startTime}9`, name: 'other' })
    },
  }
}

// npx: bot ← sh -c ← npm exec ← bash ← sshd ← init
const NPX = [
  stat(50, 40, 'node'),
  stat(40, 30, 'sh'),
  stat(30, 20, 'npm exec perpbot'),
  stat(20, 10, 'bash'),
  stat(10, 1, 'sshd'),
]

afterEach(() => {
  vi.useRealTimers()
})

describe('parent watch', () => {
  it('parses /proc/<pid>/stat, a command with spaces and parentheses included', () => {
    const line =
      '4242 (npm exec (x) y) S 4200 4242 4200 34816 4242 4194560 1 2 3 4 5 6 7 8 20 0 11 0 987654 1000 9'
    expect(parseProcStat(4242, line)).toEqual({
      pid: 4242,
      ppid: 4200,
      name: 'npm exec (x) y',
      startTime: '987654',
    })
    expect(parseProcStat(1, 'garbage')).toBeUndefined()
  })

  it('remembers up to three ancestors below pid 1, nearest first', () => {
    const t = table(NPX)
    expect(ancestorsOf(50, t.read).map((a) => a.pid)).toEqual([40, 30, 20])
    expect(ancestorsOf(10, t.read)).toEqual([])
  })

  it('names the first ancestor gone, or whose pid now names another process', () => {
    const t = table(NPX)
    const watched = ancestorsOf(50, t.read)
    expect(goneAncestor(watched, t.read)).toBeUndefined()
    t.reuse(30)
    expect(goneAncestor(watched, t.read)?.name).toBe('npm exec perpbot')
    t.kill(40)
    expect(goneAncestor(watched, t.read)?.pid).toBe(40)
  })

  it('reports once when npm exits, and nothing more', () => {
    vi.useFakeTimers()
    const t = table(NPX)
    const gone: { pid: number; name: string }[] = []
    const w = watchParent({ pid: 50, ppid: () => 40, read: t.read, onGone: (g) => void gone.push(g) })
    expect(w.watched).toHaveLength(3)
    vi.advanceTimersByTime(5_000)
    expect(gone).toEqual([])
    t.kill(30)
    vi.advanceTimersByTime(1_000)
    expect(gone).toMatchObject([{ pid: 30, name: 'npm exec perpbot' }])
    t.kill(40)
    vi.advanceTimersByTime(5_000)
    expect(gone).toHaveLength(1)
  })

  it('watches nothing under a supervisor (parent pid 1), and stops when told', () => {
    vi.useFakeTimers()
    const t = table([stat(7, 1, 'node')])
    const onGone = vi.fn()
    expect(watchParent({ pid: 7, ppid: () => 1, read: t.read, onGone }).watched).toEqual([])
    const t2 = table(NPX)
    const w = watchParent({ pid: 50, ppid: () => 40, read: t2.read, onGone })
    w.stop()
    t2.kill(40)
    vi.advanceTimersByTime(10_000)
    expect(onGone).not.toHaveBeenCalled()
  })

  it('without /proc, watches process.ppid changing', () => {
    vi.useFakeTimers()
    let ppid = 40
    const onGone = vi.fn()
    watchParent({ pid: 50, ppid: () => ppid, read: () => undefined, onGone })
    vi.advanceTimersByTime(3_000)
    expect(onGone).not.toHaveBeenCalled()
    ppid = 1
    vi.advanceTimersByTime(1_000)
    expect(onGone).toHaveBeenCalledWith({ pid: 40, name: 'parent' })
  })
})

import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { afterEach, describe, expect, it } from 'vitest'
import { placeEventLoop, placementFlag, placementText, placeVenue } from '../../bench/placement.ts'

const cpusOf = (pid: number | string, tid: number | string = pid): string =>
  /Cpus_allowed_list:\s+(\S+)/.exec(readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8'))?.[1] ?? '?'
const policyOf = (tid: string): string => execFileSync('chrt', ['-p', tid], { encoding: 'utf8' })

describe('placementFlag', () => {
  it('takes shared, refuses an unknown placement with the choices', () => {
    expect(placementFlag(['--placement', 'shared'])).toBe('shared')
    expect(() => placementFlag(['--placement', 'pinned'])).toThrow(
      '--placement takes apart or shared, not pinned',
    )
  })
  it('defaults to apart on this machine (Linux, 2 CPUs, util-linux)', () => {
    expect(availableParallelism()).toBeGreaterThanOrEqual(2)
    expect(placementFlag([])).toBe('apart')
    expect(placementText('apart', 3)).toContain('its other 3 threads and processes at idle priority')
  })
})

describe('placing the processes apart', () => {
  let child: ChildProcess | undefined
  afterEach(() => {
    child?.kill('SIGKILL')
    child = undefined
  })
  const last = String(availableParallelism() - 1)

  it('puts every thread of the venue on the last CPU', async () => {
    // A node process has helper threads from its start: each must move, not only the main one.
    child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' })
    const pid = child.pid ?? 0
    // Bounded wait for node's helper threads (V8's platform workers start soon after exec).
    for (let i = 0; i < 200 && readdirSync(`/proc/${pid}/task`).length < 4; i++)
      await new Promise((r) => setTimeout(r, 10))
    placeVenue(pid)
    const tids = readdirSync(`/proc/${pid}/task`)
    expect(tids.length).toBeGreaterThan(1)
    for (const tid of tids) expect(cpusOf(pid, tid)).toBe(last)
  })

  it("gives the bot's event loop the other CPUs and its other threads and children idle priority", async () => {
    // The bot stand-in: a node process with a child process (as the recording's writer is).
    child = spawn(
      process.execPath,
      [
        '-e',
        "require('node:child_process').spawn('sleep', ['30'], { stdio: 'ignore' }); setInterval(() => {}, 1000)",
      ],
      { stdio: 'ignore' },
    )
    const pid = child.pid ?? 0
    // Bounded wait for the grandchild to appear.
    let kids: string[] = []
    for (let i = 0; i < 200 && kids.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 10))
      kids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean)
    }
    expect(kids).toHaveLength(1)
    const idle = placeEventLoop(pid)
    const tids = readdirSync(`/proc/${pid}/task`).filter((t) => t !== String(pid))
    expect(idle).toBe(tids.length + 1)
    expect(cpusOf(pid)).toBe(availableParallelism() === 2 ? '0' : `0-${availableParallelism() - 2}`)
    expect(policyOf(String(pid))).toContain('SCHED_OTHER')
    for (const tid of tids) expect(policyOf(tid)).toContain('SCHED_IDLE')
    expect(policyOf(kids[0] ?? '')).toContain('SCHED_IDLE')
    process.kill(Number(kids[0]), 'SIGKILL')
  })
})

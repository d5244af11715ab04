/**
 * `perpbot run` as a process: a SIGTERM repeated just after a quick shutdown (two SIGTERMs 0.1 s
 * apart; the shutdown of a dry run takes well under that) must leave the exit code 0, not 143.
 * Waits are bounded guards on the child's own output, never sleeps.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { once } from 'node:events'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(import.meta.dirname, '../..')

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms)
  })
  return Promise.race([p, guard]).finally(() => clearTimeout(timer))
}

/** Resolves with the first log line whose `msg` matches. */
function lineMatching(child: ChildProcessWithoutNullStreams, re: RegExp): Promise<string> {
  return new Promise((resolveLine) => {
    let buffer = ''
    const onData = (chunk: string): void => {
      buffer += chunk
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const line = buffer.slice(0, nl)
        buffer = buffer.slice(nl + 1)
        if (re.test(line)) {
          child.stdout.off('data', onData)
          resolveLine(line)
          return
        }
      }
    }
    child.stdout.on('data', onData)
  })
}

describe('perpbot run signals', () => {
  it('exits 0 when a second SIGTERM arrives after the graceful shutdown finished', async () => {
    const child = spawn(
      process.execPath,
      ['bin/perpbot.js', 'run', '--ops-port', '0', '--log-level', 'info', '--duration', '120'],
      { cwd: ROOT, stdio: 'pipe', env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } },
    )
    child.stdout.setEncoding('utf8')
    const exited = once(child, 'exit') as Promise<[number | null, string | null]>
    try {
      await within(lineMatching(child, /running with \d+ instrument/), 60_000, 'the bot to start')
      const done = lineMatching(child, /"shutdown complete"/)
      child.kill('SIGTERM')
      await within(done, 15_000, 'the graceful shutdown')
      child.kill('SIGTERM')
      const [code, signal] = await within(exited, 15_000, 'the exit')
      expect({ code, signal }).toEqual({ code: 0, signal: null })
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    }
  }, 90_000)
})

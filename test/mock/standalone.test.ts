import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { resolve } from 'node:path'
import { request } from 'undici'
import { describe, expect, it } from 'vitest'
import type { RunningMock } from '../../src/mock/server.ts'
import { parseStandaloneArgs, runStandaloneMock } from '../../src/mock/standalone.ts'

const ROOT = resolve(import.meta.dirname, '../..')
const ENTRY = 'src/mock/standalone.ts'

/** Rejects after `ms` unless `p` settles first (a guard, never a sleep). */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms)
  })
  return Promise.race([p, guard]).finally(() => clearTimeout(timer))
}

function spawnMock(args: string[]): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, ['--import', 'tsx', ENTRY, ...args], { cwd: ROOT, stdio: 'pipe' })
}

/** Collects a stream's text; resolves `line` with the first complete line. */
function collect(stream: NodeJS.ReadableStream): { text: () => string; firstLine: Promise<string> } {
  let text = ''
  let resolveLine: (line: string) => void = () => {}
  const firstLine = new Promise<string>((r) => {
    resolveLine = r
  })
  stream.setEncoding('utf8')
  stream.on('data', (chunk: string) => {
    text += chunk
    const nl = text.indexOf('\n')
    if (nl >= 0) resolveLine(text.slice(0, nl))
  })
  return { text: () => text, firstLine }
}

async function exitCode(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode
  const [code] = (await once(child, 'exit')) as [number | null]
  return code
}

describe('standalone mock process', () => {
  it('prints one ready line, serves /v1/info/time and /events/keyset on 127.0.0.1, exits 0 on SIGTERM', async () => {
    const child = spawnMock(['--port', '0', '--seed', '3', '--scenario', 'calm', '--events', '50'])
    const out = collect(child.stdout)
    const err = collect(child.stderr)
    try {
      const line = await within(out.firstLine, 15_000, 'the ready line')
      expect(line).toMatch(
        /^perpbot mock listening on http:\/\/127\.0\.0\.1:(\d+), WebSocket ws:\/\/127\.0\.0\.1:\1\/v1\/ws \(seed 3, scenario calm, clock real, faults none, controls off\)$/,
      )
      const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1] ?? ''

      const time = await request(`${url}/v1/info/time`)
      expect(time.statusCode).toBe(200)
      const body = (await time.body.json()) as { time: number }
      expect(Math.abs(body.time - Date.now())).toBeLessThan(60_000)

      const events = await request(`${url}/events/keyset?limit=2`)
      expect(events.statusCode).toBe(200)
      expect(((await events.body.json()) as { events: unknown[] }).events).toHaveLength(2)

      child.kill('SIGTERM')
      expect(await within(exitCode(child), 5_000, 'exit after SIGTERM')).toBe(0)
      expect(out.text().trim().split('\n')).toHaveLength(1)
      expect(err.text()).toBe('')
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL')
    }
  })

  it('exits 2 with one clear line for a bad flag', async () => {
    const child = spawnMock(['--port', '0', '--scenario', 'nope'])
    const err = collect(child.stderr)
    expect(await within(exitCode(child), 15_000, 'exit on a bad flag')).toBe(2)
    const lines = err.text().trim().split('\n')
    expect(lines).toEqual([expect.stringMatching(/^perpbot mock: unknown scenario 'nope' \(known: calm, /)])
  })
})

describe('runStandaloneMock in process', () => {
  it('returns 2 for a bad flag, printing one line to stderr and nothing to stdout', async () => {
    const out: string[] = []
    const err: string[] = []
    const code = await runStandaloneMock(['--clock', 'stepped', '--verbose'], {
      handleSignals: false,
      stdout: (l) => out.push(l),
      stderr: (l) => err.push(l),
    })
    expect(code).toBe(2)
    expect(out).toEqual([])
    expect(err).toEqual(["perpbot mock: Unknown option '--verbose' (see --help)"])
  })

  it('returns 0 without listening when already aborted, and prints usage for --help', async () => {
    const out: string[] = []
    expect(
      await runStandaloneMock([], {
        handleSignals: false,
        signal: AbortSignal.abort(),
        stdout: (l) => out.push(l),
      }),
    ).toBe(0)
    expect(out).toEqual([])
    expect(await runStandaloneMock(['--help'], { handleSignals: false, stdout: (l) => out.push(l) })).toBe(0)
    expect(out[0]).toMatch(/^usage: perpbot mock /)
  })

  it('returns 1 with one line when the port is taken', async () => {
    const taken = createServer()
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r))
    const { port } = taken.address() as AddressInfo
    const err: string[] = []
    try {
      const code = await runStandaloneMock(['--port', String(port), '--events', '5'], {
        handleSignals: false,
        stdout: () => {},
        stderr: (l) => err.push(l),
      })
      expect(code).toBe(1)
      expect(err).toEqual([expect.stringMatching(/^perpbot mock: cannot start: .*EADDRINUSE/)])
    } finally {
      await new Promise((r) => taken.close(r))
    }
  })

  it('serves until aborted, with the clock, faults and controls of its flags', async () => {
    const lines: string[] = []
    const live = new AbortController()
    let ready: (m: RunningMock) => void = () => {}
    const started = new Promise<RunningMock>((r) => {
      ready = r
    })
    const run = runStandaloneMock(
      ['--clock', 'stepped', '--controls', '--faults', 'skewed', '--events', '20'],
      {
        handleSignals: false,
        signal: live.signal,
        stdout: (l) => lines.push(l),
        onReady: (m) => ready(m),
      },
    )
    try {
      const mock = await within(started, 15_000, 'the mock to listen')
      const r = await request(`${mock.url}/__mock/state`)
      expect(await r.body.json()).toMatchObject({ clock: { mode: 'stepped', serverOffsetMs: 30_000 } })
      expect(lines).toEqual([expect.stringMatching(/clock stepped, faults skewed, controls on\)$/)])
    } finally {
      live.abort()
    }
    expect(await within(run, 5_000, 'the run to end')).toBe(0)
  })
})

describe('parseStandaloneArgs', () => {
  it('applies defaults', () => {
    expect(parseStandaloneArgs([])).toEqual({
      port: 0,
      seed: 1,
      scenario: 'calm',
      clock: 'real',
      speed: undefined,
      faults: undefined,
      events: undefined,
      controls: false,
    })
  })

  it('reads every flag; --speed implies the accelerated clock', () => {
    expect(
      parseStandaloneArgs([
        '--port',
        '8080',
        '--seed',
        '9',
        '--scenario',
        'flaky',
        '--speed',
        '60',
        '--faults',
        'slow',
        '--events',
        '10',
        '--controls',
      ]),
    ).toEqual({
      port: 8080,
      seed: 9,
      scenario: 'flaky',
      clock: 'accelerated',
      speed: 60,
      faults: 'slow',
      events: 10,
      controls: true,
    })
    expect(parseStandaloneArgs(['--help'])).toBe('help')
  })

  it.each([
    [['--port', '70000'], /--port must be an integer from 0 to 65535/],
    [['--port', 'x'], /--port must be an integer/],
    [['--seed', '1.5'], /--seed must be an integer/],
    [['--clock', 'fast'], /unknown clock 'fast'/],
    [['--clock', 'stepped', '--speed', '2'], /--speed applies only to --clock accelerated/],
    [['--speed', '0'], /--speed must be a positive number/],
    [['--faults', 'chaos'], /unknown fault preset 'chaos'/],
    [['--events', '0'], /--events must be an integer from 1/],
    [['--bogus'], /^Unknown option '--bogus'$/],
    [['extra'], /^Unexpected argument 'extra'$/],
  ])('rejects %j', (argv, message) => {
    expect(() => parseStandaloneArgs(argv)).toThrow(message)
  })
})

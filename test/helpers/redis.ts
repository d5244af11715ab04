/**
 * A real `redis-server` for the fleet tests: 127.0.0.1, a random free port, no persistence
 * (`--save "" --appendonly no`), a throwaway working directory; stopped (and the directory removed)
 * by `stop()`. `restart()` stops it and starts a fresh one on the same port, which is how the tests
 * take Redis away mid-run (everything in memory is lost, scripts included).
 *
 * Absent binary: `redisSkipReason()` names it so the suite skips with a clear message, unless
 * `PERPBOT_REQUIRE_SERVICES=1` (CI), where `startRedis` throws instead.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const BINARY = process.env.PERPBOT_REDIS_SERVER ?? 'redis-server'

function binaryPresent(): boolean {
  const r = spawnSync(BINARY, ['--version'], { stdio: 'ignore' })
  return r.error === undefined && r.status === 0
}

const servicesRequired = (): boolean => process.env.PERPBOT_REQUIRE_SERVICES === '1'

/**
 * Why the Redis tests cannot run here, or undefined when they can. With PERPBOT_REQUIRE_SERVICES=1
 * it is always undefined: the tests then run and fail loudly on a missing binary.
 */
export function redisSkipReason(): string | undefined {
  if (servicesRequired() || binaryPresent()) return undefined
  return `skipped: no ${BINARY} on PATH (apt-get install redis-server, or set PERPBOT_REDIS_SERVER); CI sets PERPBOT_REQUIRE_SERVICES=1 and never skips`
}

export interface RedisServer {
  readonly port: number
  readonly url: string
  /** Stops the server and starts a fresh, empty one on the same port. */
  restart(opts?: { downMs?: number }): Promise<void>
  /** Stops the server only (for tests that watch clients while it is gone). */
  kill(): Promise<void>
  /** Starts it again after `kill()`. */
  start(): Promise<void>
  stop(): Promise<void>
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address()
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0
      srv.close(() => resolve(port))
    })
  })
}

async function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = new Socket()
    s.once('connect', () => {
      s.destroy()
      resolve(true)
    })
    s.once('error', () => {
      s.destroy()
      resolve(false)
    })
    s.connect(port, '127.0.0.1')
  })
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

export async function startRedis(): Promise<RedisServer> {
  if (!binaryPresent()) {
    throw new Error(
      `no ${BINARY} on PATH: install Debian's redis-server (PERPBOT_REQUIRE_SERVICES=1 forbids skipping)`,
    )
  }
  const dir = mkdtempSync(join(tmpdir(), 'perpbot-redis-'))
  const port = await freePort()
  let child: ChildProcess | undefined
  let log = ''

  const launch = async (): Promise<void> => {
    log = ''
    const c = spawn(
      BINARY,
      [
        '--bind',
        '127.0.0.1',
        '--port',
        String(port),
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dir,
        '--maxmemory-policy',
        'noeviction',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    )
    c.stdout?.on('data', (d: Buffer) => {
      if (log.length < 8_000) log += d.toString()
    })
    c.stderr?.on('data', (d: Buffer) => {
      if (log.length < 8_000) log += d.toString()
    })
    child = c
    // Bounded: 5 s for a server that starts in milliseconds.
    for (let i = 0; i < 100; i++) {
      if (c.exitCode !== null) break
      if (await canConnect(port)) return
      await sleep(50)
    }
    c.kill('SIGKILL')
    throw new Error(`redis-server did not start on 127.0.0.1:${port}:\n${log}`)
  }

  const halt = async (): Promise<void> => {
    const c = child
    child = undefined
    if (c === undefined || c.exitCode !== null) return
    const exited = new Promise<void>((r) => c.once('exit', () => r()))
    c.kill('SIGKILL')
    await exited
  }

  await launch()
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async restart(opts = {}) {
      await halt()
      if (opts.downMs !== undefined) await sleep(opts.downMs)
      await launch()
    },
    kill: halt,
    start: launch,
    async stop() {
      await halt()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

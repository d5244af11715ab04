/**
 * A throwaway PostgreSQL server for tests: `initdb` into a temp dir, `postgres` on 127.0.0.1 on a free
 * port (run as the `postgres` user when we are root: the server refuses root), stopped and deleted by
 * `stop()`. Without the binaries the caller skips with `POSTGRES_SKIP_REASON`, unless
 * PERPBOT_REQUIRE_SERVICES=1 (CI), where `startPostgres` throws instead.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'

export const REQUIRE_SERVICES = process.env.PERPBOT_REQUIRE_SERVICES === '1'

/** The directory holding initdb and postgres: PERPBOT_PG_BIN, else Debian's newest, else PATH. */
function findPgBin(): string | undefined {
  const fromEnv = process.env.PERPBOT_PG_BIN
  if (fromEnv && existsSync(join(fromEnv, 'initdb'))) return fromEnv
  const root = '/usr/lib/postgresql'
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a))
    if (versions[0] !== undefined) return join(root, versions[0], 'bin')
  }
  for (const dir of (process.env.PATH ?? '').split(':'))
    if (dir && existsSync(join(dir, 'initdb'))) return dir
  return undefined
}

const PG_BIN = findPgBin()
export const POSTGRES_AVAILABLE = PG_BIN !== undefined
export const POSTGRES_SKIP_REASON =
  'PostgreSQL tests skipped: no initdb/postgres found (install Debian package postgresql, or set PERPBOT_PG_BIN)'

/** Whether a PostgreSQL suite should run; throws in CI when the server is missing (never a silent skip). */
export function postgresEnabled(): boolean {
  if (POSTGRES_AVAILABLE) return true
  if (REQUIRE_SERVICES) throw new Error(`${POSTGRES_SKIP_REASON}; PERPBOT_REQUIRE_SERVICES=1 requires them`)
  console.warn(POSTGRES_SKIP_REASON)
  return false
}

export interface TestPostgres {
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  url: string
  port: number
  /** A fresh database on the server; its URL. */
  createDatabase(name: string): Promise<string>
  stop(): Promise<void>
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address()
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0
      s.close(() => resolve(port))
    })
  })
}

function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim())
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim())
  return { uid, gid }
}

async function waitReady(url: string, child: ChildProcess | undefined, log: () => string): Promise<void> {
  const deadline = Date.now() + 15_000
  for (let i = 0; Date.now() < deadline; i++) {
    if (child !== undefined && child.exitCode !== null)
      throw new Error(`postgres exited (${child.exitCode}): ${log()}`)
    const client = new pg.Client({ connectionString: url })
    try {
      await client.connect()
      await client.query('select 1')
      await client.end()
      return
    } catch {
      await client.end().catch(() => undefined)
      await new Promise((r) => setTimeout(r, 50 + i * 10))
    }
  }
  throw new Error(`postgres did not accept connections within 15 s: ${log()}`)
}

/**
 * An initdb'd data directory, made once per machine and copied per server (initdb costs seconds on a
 * loaded machine, a copy a fraction): built beside, then renamed into place, so racing test files
 * never see half of one.
 */
function dataTemplate(bin: string, user: { uid: number; gid: number } | undefined): string {
  const version = bin.split('/').at(-2) ?? 'pg'
  const template = join(tmpdir(), `perpbot-pg-template-${version}-${process.getuid?.() ?? 0}`)
  if (existsSync(join(template, 'PG_VERSION'))) return template
  const building = mkdtempSync(join(tmpdir(), 'perpbot-pg-template-build-'))
  if (user) chownSync(building, user.uid, user.gid)
  const data = join(building, 'data')
  execFileSync(
    join(bin, 'initdb'),
    ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'],
    {
      ...(user ? { uid: user.uid, gid: user.gid } : {}),
      stdio: 'pipe',
      cwd: building,
    },
  )
  try {
    renameSync(data, template)
  } catch {
    // Another file built it first: theirs is as good.
  }
  rmSync(building, { recursive: true, force: true })
  return template
}

export interface StartPostgresOptions {
  /** Wait until it accepts connections (default); false: return once spawned. */
  wait?: boolean
  /** Default 30 (a file's own server); one server shared by the run's forks needs more. */
  maxConnections?: number
}

/** Starts a server; the caller must `stop()` it (afterAll). */
export async function startPostgres(o: StartPostgresOptions = {}): Promise<TestPostgres> {
  if (PG_BIN === undefined) throw new Error(POSTGRES_SKIP_REASON)
  const dir = mkdtempSync(join(tmpdir(), 'perpbot-pg-'))
  const user = postgresUser()
  if (user) chownSync(dir, user.uid, user.gid)
  const data = join(dir, 'data')
  const as = user ? { uid: user.uid, gid: user.gid } : {}
  execFileSync('cp', ['-a', dataTemplate(PG_BIN, user), data])
  const port = await freePort()
  let output = ''
  const child = spawn(
    join(PG_BIN, 'postgres'),
    [
      '-D',
      data,
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'shared_buffers=16MB',
      '-c',
      `max_connections=${o.maxConnections ?? 30}`,
    ],
    { ...as, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  const keep = (b: Buffer): void => {
    output = (output + b.toString()).slice(-4_000)
  }
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`
  const stop = async (): Promise<void> => {
    if (child.exitCode === null) {
      const exited = new Promise<void>((r) => child.once('exit', () => r()))
      child.kill('SIGINT') // fast shutdown
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000)
      await exited
      clearTimeout(timer)
    }
    rmSync(dir, { recursive: true, force: true })
  }
  if (o.wait !== false) {
    try {
      await waitReady(url, child, () => output)
    } catch (e) {
      await stop()
      throw e
    }
  }
  return { ...serverAt(url, port), stop }
}

/**
 * The server the run shares (test/setup/postgres.ts starts it and provides its URL), once it accepts
 * connections; its `stop` is the run's, so this one does nothing.
 */
export async function connectPostgres(url: string): Promise<TestPostgres> {
  await waitReady(url, undefined, () => `(the run's shared server at ${url})`)
  return { ...serverAt(url, Number(new URL(url).port)), stop: async () => undefined }
}

function serverAt(url: string, port: number): Omit<TestPostgres, 'stop'> {
  return {
    url,
    port,
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      try {
        await client.query(`create database "${name.replace(/"/g, '')}"`)
      } finally {
        await client.end()
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`
    },
  }
}

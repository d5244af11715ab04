/**
 * The bot as a real process: SIGHUP (a closed terminal) stops it by its exit policy with exit 0, and a
 * bot whose starting shell is killed (the `npx perpbot run` case: npm and its `sh -c` gone, the bot
 * re-parented) notices and stops the same way. Bare `perpbot` prints the usage.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { perpbotNodeArgs } from '../helpers/perpbotProcess.ts'
import { perpbot } from './perpbotCli.ts'

const dir = mkdtempSync(join(tmpdir(), 'perpbot-signals-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return typeof address === 'object' && address !== null ? address.port : 0
}

async function runArgs(name: string): Promise<string[]> {
  const config = join(dir, `${name}.json`)
  writeFileSync(
    config,
    JSON.stringify({
      mode: 'dry-run',
      ops: { stateDir: join(dir, name) },
      logging: { level: 'info', pretty: 'never' },
    }),
  )
  return perpbotNodeArgs(['run', '--config', config, '--ops-port', String(await freePort())])
}

/** Collects the child's stdout lines; resolves `ended` when the pipe closes (every writer gone). */
function lines(child: ChildProcess): { text(): string; running: Promise<void>; ended: Promise<void> } {
  let text = ''
  let onRunning: () => void = () => undefined
  const running = new Promise<void>((resolve) => {
    onRunning = resolve
  })
  child.stdout?.setEncoding('utf8')
  child.stdout?.on('data', (c: string) => {
    text += c
    if (text.includes('running with')) onRunning()
  })
  const ended = new Promise<void>((resolve) => child.stdout?.once('end', () => resolve()))
  return { text: () => text, running, ended }
}

const env = { ...process.env, PERPBOT_BIN: '', PERPBOT_OPS_TOKEN: '' }

describe('signals and a lost parent', () => {
  it('bare perpbot prints the usage and exits 2', async () => {
    const r = await perpbot([])
    expect(r.code).toBe(2)
    expect(r.err).toMatch(/^usage: perpbot <command>/)
  })

  it('SIGHUP stops the bot by its exit policy and exits 0', { timeout: 60_000 }, async () => {
    const child = spawn(process.execPath, await runArgs('hup'), { stdio: ['ignore', 'pipe', 'pipe'], env })
    const out = lines(child)
    const exited = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)))
    await out.running
    child.kill('SIGHUP')
    expect(await exited).toBe(0)
    await out.ended
    expect(out.text()).toMatch(/"reason":"SIGHUP".*"msg":"shutting down"/)
    expect(out.text()).toContain('exit policy: cancelled all open orders')
    expect(out.text()).toContain('shutdown complete')
  })

  it('a bot whose starting shell is killed stops by its exit policy', { timeout: 60_000 }, async () => {
    const args = (await runArgs('orphan')).map((a) => `'${a}'`).join(' ')
    // `; true` keeps the shell as the bot's parent, as `sh -c` under `npm exec` is.
    const shell = spawn('sh', ['-c', `'${process.execPath}' ${args}; true`], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env,
    })
    const out = lines(shell)
    await out.running
    shell.kill('SIGKILL')
    // The pipe ends when the bot itself has exited.
    await out.ended
    // On a failure, the lines of the stop say what it did instead (once under load 17: not this).
    const stop = out
      .text()
      .split('\n')
      .filter((l) => /exit policy|shutting down|shutdown|dead-man|error/i.test(l))
      .join('\n')
    expect(out.text()).toMatch(/the process that started the bot exited \(pid \d+, sh\)/)
    expect(out.text(), stop).toContain('exit policy: cancelled all open orders')
    expect(out.text(), stop).toContain('shutdown complete')
  })
})

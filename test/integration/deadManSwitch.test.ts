/**
 * The venue's dead-man switch, end to end: `perpbot run --live` as a child process against the mock
 * over loopback, killed with SIGKILL (no exit policy can run); the mock cancels its orders when the
 * armed deadline passes on its clock.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { systemClock } from '../../src/clock.ts'
import { type RunningMock, startMockServer } from '../../src/mock/server.ts'
import { createPerpsClient, type PerpsClient } from '../../src/perps/client/createPerpsClient.ts'
import { seededRandom } from '../../src/random.ts'
import { registerMockProxy } from '../helpers/mockAccount.ts'
import { perpbotNodeArgs } from '../helpers/perpbotProcess.ts'

let mock: RunningMock
let account: PerpsClient
let env: Record<string, string>
let bot: ChildProcess | undefined
const output: string[] = []

beforeAll(async () => {
  mock = await startMockServer({ port: 0, seed: 9, clock: 'real' })
  const { key, credentials } = await registerMockProxy(mock.url, 'dms')
  account = createPerpsClient({ baseUrl: mock.url, clock: systemClock, random: seededRandom(3), credentials })
  env = {
    PATH: process.env.PATH ?? '',
    PERPS_URL: mock.url,
    CATALOGUE_URL: mock.url,
    PERPS_PROXY_PRIVATE_KEY: key,
    PERPS_PROXY_SECRET: credentials.secret,
  }
})

afterAll(async () => {
  bot?.kill('SIGKILL')
  await account?.close()
  await mock?.close()
})

describe('dead-man switch', () => {
  it('kill -9 the live bot: the mock cancels its orders at the armed deadline', async () => {
    // The live overlay, with the state journal in a temporary folder instead of the work tree.
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-dms-'))
    const overlay = join(dir, 'live.json')
    writeFileSync(overlay, JSON.stringify({ mode: 'live', ops: { stateDir: join(dir, 'state') } }))
    bot = spawn(
      process.execPath,
      perpbotNodeArgs(['run', '--live', '--config', overlay, '--ops-port', '0', '--log-level', 'info']),
      { env, stdio: ['ignore', 'pipe', 'pipe'] },
    )
    bot.stdout?.on('data', (d: Buffer) => output.push(d.toString()))
    bot.stderr?.on('data', (d: Buffer) => output.push(d.toString()))
    const exited = new Promise<number | null>((resolve) => bot?.once('exit', (code) => resolve(code)))

    // The bot quotes and has armed the switch.
    await vi.waitFor(
      async () => {
        expect(output.join('')).toContain('dead-man switch armed')
        expect((await account.getOpenOrders()).length).toBeGreaterThan(0)
      },
      { timeout: 45_000, interval: 250 },
    )
    bot.kill('SIGKILL')
    await exited
    const resting = await account.getOpenOrders()
    expect(resting.length).toBeGreaterThan(0)
    expect(output.join('')).not.toContain(env.PERPS_PROXY_SECRET)

    // Past the deadline (60 s by default) on the venue's clock, nothing of ours rests any more.
    mock.clock.advance(61_000)
    expect(await account.getOpenOrders()).toEqual([])
    // Some may have filled on the way (the market moves for those 61 s); the rest were auto-cancelled.
    const statuses = await Promise.all(
      resting.map(async (r) => (await account.getOrders({ orderId: r.oid }))[0]?.status),
    )
    expect(statuses).toContain('auto_cancelled')
    expect(statuses.every((st) => st === 'auto_cancelled' || st === 'filled')).toBe(true)
  }, 60_000)
})

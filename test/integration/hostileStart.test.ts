/**
 * Issue 24, point 5 (bot side): a venue that trickles its answers at start. From the first second the
 * bot serves /readyz (503, naming what it waits on) and logs a progress line every few seconds; once
 * started, the full ops server answers.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { type HostileRun, startBotOnHostileVenue } from '../adversarial/hostileVenue.ts'
import { onEndpoints, trickle } from '../adversarial/tampers.ts'

let run: HostileRun | undefined
afterEach(async () => {
  await run?.close()
  run = undefined
})

describe('a venue that trickles its answers at start', () => {
  it('serves /readyz 503 with the reason from the first second and logs progress while it waits', async () => {
    const lines: string[] = []
    const started = startBotOnHostileVenue({
      mock: { seed: 61, scenario: 'calm', clock: 'real', catalogue: { eventCount: 5 } },
      ops: true,
      // The instruments read takes 7 s (a time read held would skew the clock estimate instead).
      tampers: [{ name: 'trickle', tamper: trickle(7_000, onEndpoints('getInstruments')) }],
      onLogLine: (l) => void lines.push(l),
    })
    const t0 = Date.now()
    await vi.waitFor(() => expect(lines.some((l) => l.includes('ops server listening'))).toBe(true), {
      timeout: 6_500,
      interval: 20,
    })
    // Before the trickled answer (7 s) ends: the early server does not wait for the venue (a bound
    // that holds on a loaded machine, where 2 s did not always).
    expect(Date.now() - t0).toBeLessThan(6_500)
    const early = JSON.parse(lines.find((l) => l.includes('ops server listening')) ?? '{}') as {
      url?: string
    }
    const ready = await fetch(`${early.url}/readyz`)
    expect(ready.status).toBe(503)
    expect(await ready.text()).toContain('starting: the venue')
    expect((await fetch(`${early.url}/livez`)).status).toBe(200)
    run = await started
    // One line every 3 s while it waited.
    const progress = lines.filter((l) => l.includes('starting: still waiting on the venue'))
    expect(progress.length).toBeGreaterThanOrEqual(2)
    // The full ops server took over.
    const url = run.bot.opsUrl
    expect(url).toBeDefined()
    expect((await fetch(`${url}/status`)).status).toBe(200)
  }, 60_000)
})

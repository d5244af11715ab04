/**
 * `perpbot run --paper` end to end at the command line against a stand-in venue (the mock on
 * loopback, wall clock, its public tape printing every push tick): the run reads the venue's public
 * feed, trades its book in this process, serves its ops endpoints and dashboard (mode paper, the
 * stream the book's own), stops by `--duration` with exit 0, and leaves a paper journal that
 * `report --paper` reads; the venue receives no signed or authenticated request.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { AUTH_HEADER_PAIRS } from '../../src/mock/perps/handler.ts'
import { PAPER_BOOK_LABEL } from '../../src/paper/paperVenue.ts'
import { startLoopbackMock } from '../../src/sim/botOnMock.ts'
import { perpbot } from '../cli/perpbotCli.ts'

const stateDir = mkdtempSync(join(tmpdir(), 'perpbot-paper-run-'))
afterAll(() => rmSync(stateDir, { recursive: true, force: true }))

/** A free loopback port for the ops server (the run is told it; the test reads it). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const a = s.address()
      const port = typeof a === 'object' && a !== null ? a.port : 0
      s.close(() => resolve(port))
    })
  })
}

describe('perpbot run --paper end to end', { timeout: 60_000 }, () => {
  it('trades its in-process book on the venue’s public feed; ops and dashboard serve it; nothing signed reaches the venue', async () => {
    let signed = 0
    let reads = 0
    const venue = await startLoopbackMock({
      mock: { seed: 8, clock: 'real', streamTape: 'tick', catalogue: { eventCount: 5 } },
      onExchange: (x) => {
        reads++
        if (x.command || AUTH_HEADER_PAIRS.some((p) => x.req.headers[p.proxy] !== undefined)) signed++
      },
    })
    const config = join(stateDir, 'paper.json')
    writeFileSync(config, JSON.stringify({ ops: { stateDir } }))
    const port = await freePort()
    const ops = `http://127.0.0.1:${port}`
    try {
      const run = perpbot(
        [
          'run',
          '--paper',
          '--config',
          config,
          '--ops-port',
          String(port),
          '--duration',
          '8',
          '--log-level',
          'warn',
        ],
        {
          PERPS_URL: venue.server.url,
          PERPS_WS_URL: venue.streamUrl ?? '',
          CATALOGUE_URL: venue.server.url,
        },
      )
      const status = await vi.waitFor(
        async () => {
          const ready = await fetch(`${ops}/readyz`)
          expect(ready.status).toBe(200)
          const s = (await (await fetch(`${ops}/status`)).json()) as {
            mode: string
            instruments: { openOrders: number }[]
            details?: { stream?: { url?: string; state?: string } }
          }
          expect(s.details?.stream).toMatchObject({ url: PAPER_BOOK_LABEL, state: 'open' })
          // Quoting: its orders rest in the paper book.
          expect(s.instruments.some((i) => i.openOrders > 0)).toBe(true)
          return s
        },
        { timeout: 20_000, interval: 200 },
      )
      expect(status.mode).toBe('paper')
      const page = await fetch(`${ops}/`)
      expect(page.status).toBe(200)
      expect(await page.text()).toMatch(/<html/i)
      expect(await (await fetch(`${ops}/metrics`)).text()).toMatch(/perpbot_/)
      const r = await run
      expect(r.err).not.toMatch(/"level":50/)
      expect(r.code).toBe(0)
      const report = await perpbot(['report', '--paper', '--config', config])
      expect(report.code).toBe(0)
      expect(report.out).toContain(join(stateDir, 'journal-paper.sqlite'))
    } finally {
      await venue.close()
    }
    // The venue saw the paper book's public reads only.
    expect(reads).toBeGreaterThanOrEqual(3)
    expect(signed).toBe(0)
  })
})

/**
 * `npm run screenshot`: the dashboard during a dry run, as docs/dashboard.png. The real bot runs
 * against the mock over loopback on its accelerated clock (trending market); once enough virtual time has passed
 * for the charts, headless Chromium (playwright-core) takes a full-page screenshot.
 * Usage: npm run screenshot -- [--out docs/dashboard.png] [--minutes 8] [--speed 40]
 */
import { parseArgs } from 'node:util'
import { chromium } from 'playwright-core'
import { startBotOnMock } from '../src/sim/botOnMock.ts'
import { CHROMIUM_ARGS, chromiumPath } from '../test/helpers/chromium.ts'
import { exitWithHelpOnRequest } from './stats.ts'

exitWithHelpOnRequest(import.meta.url)

const { values } = parseArgs({
  options: {
    out: { type: 'string', default: 'docs/dashboard.png' },
    minutes: { type: 'string', default: '8' },
    speed: { type: 'string', default: '40' },
    scenario: { type: 'string', default: 'trending' },
  },
})
const virtualMs = Number(values.minutes) * 60_000
const wallBoundMs = 120_000

const browser = await chromium.launch({
  executablePath: chromiumPath(),
  headless: true,
  args: [...CHROMIUM_ARGS],
})
const run = await startBotOnMock({
  mock: {
    seed: 7,
    scenario: values.scenario,
    clock: 'accelerated',
    speed: Number(values.speed),
    catalogue: { eventCount: 20 },
  },
  logLevel: 'warn',
  ops: true,
})
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 }, deviceScaleFactor: 1 })
  await page.goto(`${run.bot.opsUrl}/`)
  const from = run.mock.clock.now()
  const wallStart = Date.now()
  // Wait for virtual time to pass, bounded in wall time (the page stays live meanwhile).
  // Wait until the page shows a sample that far into the run, bounded in wall time.
  await page.waitForFunction(
    `(() => { const m = /bot time (\\S+) (\\S+) UTC/.exec(document.getElementById('clock')?.textContent ?? ''); return m !== null && Date.parse(m[1] + 'T' + m[2] + 'Z') >= ${from + virtualMs} })()`,
    undefined,
    { timeout: wallBoundMs, polling: 500 },
  )
  // One animation frame, so the last sample is drawn.
  await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => resolve(true)))')
  await page.screenshot({ path: values.out, fullPage: true })
  console.log(
    `wrote ${values.out}: ${Math.round((run.mock.clock.now() - from) / 1000)} s of bot time in ${Math.round((Date.now() - wallStart) / 1000)} s`,
  )
} finally {
  await run.stop('screenshot taken')
  await browser.close()
}

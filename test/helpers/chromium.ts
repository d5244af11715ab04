/**
 * Where the browser tests find Chromium: `PERPBOT_CHROMIUM`, else Debian's /usr/bin/chromium. Absent,
 * they fail with this error (CI installs it, see .ci/run), never skip.
 */
import { existsSync } from 'node:fs'

export function chromiumPath(): string {
  const path = process.env.PERPBOT_CHROMIUM ?? '/usr/bin/chromium'
  if (!existsSync(path))
    throw new Error(
      `no Chromium at ${path}: install Debian's chromium (apt-get install chromium) or set PERPBOT_CHROMIUM`,
    )
  return path
}

/** Headless flags for a container (root without a user namespace sandbox, small /dev/shm). */
export const CHROMIUM_ARGS: readonly string[] = ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu']

/**
 * Waits until a string expression is truthy in the page. Not `page.waitForFunction`: its polling
 * evaluates the predicate with `new Function` inside the page, which the dashboard's Content Security
 * Policy (no 'unsafe-eval') refuses whenever the predicate is not already true at the first try; a
 * plain `evaluate` goes through the debugger protocol, which the page's policy does not govern.
 */
export async function waitInPage(
  page: { evaluate(expression: string): Promise<unknown> },
  expression: string,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await page.evaluate(expression)) return
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${expression}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

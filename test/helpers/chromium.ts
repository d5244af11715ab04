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

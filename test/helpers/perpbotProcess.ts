/**
 * How a test starts perpbot as a process of its own: the compiled CLI (bin/perpbot.js) when dist/ is
 * newer than every source under src/ and strategies/ (as `npm test` leaves it: it builds first), else
 * the sources through tsx (a test run right after an edit, before a build). Both run the code on disk:
 * the rule is bin/perpbot.js's own. The compiled start costs a third of tsx's CPU (0.5 against
 * 1.5 CPU-s for `--version`, measured under load 16), and a test that starts four bots pays it four times.
 */
import { existsSync, readdirSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = dirname(dirname(dirname(fileURLToPath(import.meta.url))))
const BUILT = join(ROOT, 'dist', 'src', 'cli', 'main.js')

function newestSource(dir: string): number {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path))
    else if (/\.(ts|mts|js|mjs)$/.test(entry.name) && !/\.test\.ts$/.test(entry.name))
      newest = Math.max(newest, statSync(path).mtimeMs)
  }
  return newest
}

/** Whether bin/perpbot.js would run dist/ now (it refuses a build older than its sources). */
export function compiledIsCurrent(): boolean {
  if (!existsSync(BUILT)) return false
  const built = statSync(BUILT).mtimeMs
  return ['src', 'strategies'].every(
    (d) => !existsSync(join(ROOT, d)) || newestSource(join(ROOT, d)) <= built,
  )
}

/**
 * The `node` arguments that run `perpbot <args>`: `[bin/perpbot.js, ...args]` on a current build,
 * `['--import', 'tsx', src/cli/main.ts, ...args]` otherwise. Checked at each call (a build may land
 * between two tests).
 */
export function perpbotNodeArgs(args: readonly string[]): string[] {
  return compiledIsCurrent()
    ? [join(ROOT, 'bin', 'perpbot.js'), ...args]
    : ['--import', 'tsx', join(ROOT, 'src', 'cli', 'main.ts'), ...args]
}

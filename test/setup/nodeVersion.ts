/**
 * Vitest global setup: under Node < 24, says plainly which test files are skipped because the official
 * Polymarket packages (`@polymarket/client`, `@polymarket/bindings`) need Node >= 24 to import, so a
 * run on Node 20 is not mistaken for full coverage. `bash .ci/run` also runs the suite on Node 24.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'

const NODE_MAJOR = Number(process.versions.node.split('.')[0])
/** How such a test gates itself (see test/mock/officialClient.test.ts). */
const GATE = /runIf\(NODE_MAJOR >= 24\)/

function testFiles(dir: string): string[] {
  const out: string[] = []
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name)
    if (e.isDirectory()) out.push(...testFiles(path))
    else if (e.isFile() && e.name.endsWith('.test.ts')) out.push(path)
  }
  return out
}

/** The test files that only run under Node >= 24. */
export function node24Files(root = 'test'): string[] {
  return testFiles(root)
    .filter((f) => GATE.test(readFileSync(f, 'utf8')))
    .map((f) => relative('.', f))
    .sort()
}

export function setup(): void {
  if (NODE_MAJOR >= 24) return
  const files = node24Files()
  if (files.length === 0) return
  process.stdout.write(
    `\nNode ${process.versions.node}: ${files.length} test file(s) check the official @polymarket packages, which need Node >= 24, and are SKIPPED here:\n${files.map((f) => `  - ${f}`).join('\n')}\nRun them with Node 24 (bash .ci/run, or PATH=<node24>/bin:$PATH npx vitest run ${files.join(' ')}).\n\n`,
  )
}

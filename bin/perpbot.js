#!/usr/bin/env node
// perpbot launcher: runs the compiled CLI, no compiler at run time. `npm run build` compiles src/ and
// strategies/ into dist/ (npm ci runs it as `prepare`); the Docker image holds the compiled tree
// alone, at the app's root. A build older than its sources is refused: the bot never runs code other
// than the code on disk (rebuild with `npm run build`).
import { existsSync, readdirSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = dirname(dirname(fileURLToPath(import.meta.url)))
const built = join(root, 'dist', 'src', 'cli', 'main.js')
const image = join(root, 'src', 'cli', 'main.js')

/** The newest modification time (ms) of the TypeScript and module files under `dir`, tests aside. */
function newestSource(dir) {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path))
    else if (/\.(ts|mts|js|mjs)$/.test(entry.name) && !/\.test\.ts$/.test(entry.name))
      newest = Math.max(newest, statSync(path).mtimeMs)
  }
  return newest
}

function refuse(message) {
  process.stderr.write(`perpbot: ${message}\n`)
  process.exit(2)
}

let entry
if (existsSync(built)) {
  const buildTime = statSync(built).mtimeMs
  for (const dir of ['src', 'strategies']) {
    const sources = join(root, dir)
    if (existsSync(sources) && newestSource(sources) > buildTime)
      refuse(`${dir}/ changed after the last build (dist/): run \`npm run build\``)
  }
  entry = built
} else if (existsSync(image)) {
  entry = image
} else {
  refuse('no compiled build in dist/: run `npm run build` (npm ci runs it; it needs the dev dependencies)')
}

process.env.PERPBOT_BIN = '1'
await import(pathToFileURL(entry).href)

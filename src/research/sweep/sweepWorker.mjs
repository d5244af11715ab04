// A sweep pool worker (piscina): loads the task once per worker, then runs point after point; each
// result says how long that load took (on the worker's first point) and which thread ran it. Run from
// the build (dist/) the compiled task sits beside this file; run from the sources (tests, benches) it
// is TypeScript, loaded through tsx's API (a worker thread does not inherit the TypeScript loader
// under every runner), which only a development install has.
import { existsSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import { threadId } from 'node:worker_threads'

const started = performance.now()
const compiled = new URL('./task.js', import.meta.url)
const task = existsSync(compiled)
  ? await import(compiled.href)
  : await (await import('tsx/esm/api')).tsImport('./task.ts', import.meta.url)
let loadMs = performance.now() - started

export async function run(t) {
  const r = await task.runPoint(t)
  r.timing.loadMs = loadMs
  r.timing.thread = threadId
  loadMs = 0
  return r
}

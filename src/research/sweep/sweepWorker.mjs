// A sweep pool worker (piscina): loads the TypeScript task through tsx's API once per worker (a
// worker thread does not inherit the TypeScript loader under every runner), then runs point after
// point; each result says how long that load took (on the worker's first point) and which thread ran it.
import { performance } from 'node:perf_hooks'
import { threadId } from 'node:worker_threads'
import { tsImport } from 'tsx/esm/api'

const started = performance.now()
const task = await tsImport('./task.ts', import.meta.url)
let loadMs = performance.now() - started

export async function run(t) {
  const r = await task.runPoint(t)
  r.timing.loadMs = loadMs
  r.timing.thread = threadId
  loadMs = 0
  return r
}

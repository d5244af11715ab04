// A sweep pool worker (piscina): loads the TypeScript task through tsx's API, since a worker thread
// does not inherit the TypeScript loader under every runner.
import { tsImport } from 'tsx/esm/api'

const task = await tsImport('./task.ts', import.meta.url)

export function run(t) {
  return task.runPoint(t)
}

// The recorder process (recorderProcess.ts), which needs no loader flags of its own: run from the
// build (dist/) the compiled recorder sits beside this file; run from the sources it is TypeScript,
// loaded through tsx's API (a development install).
import { existsSync } from 'node:fs'

const compiled = new URL('./recorderProcessMain.js', import.meta.url)
const main = existsSync(compiled)
  ? await import(compiled.href)
  : await (await import('tsx/esm/api')).tsImport('./recorderProcessMain.ts', import.meta.url)
main.runRecorderProcess()

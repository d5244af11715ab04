// The recorder process (recorderProcess.ts): loads the TypeScript recorder through tsx's API, so the
// child needs no loader flags of its own.
import { tsImport } from 'tsx/esm/api'

const main = await tsImport('./recorderProcessMain.ts', import.meta.url)
main.runRecorderProcess()

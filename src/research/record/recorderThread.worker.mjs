// The recorder thread (recorderThread.ts): loads the TypeScript recorder through tsx's API, since a
// worker thread does not inherit the TypeScript loader under every runner.
import { tsImport } from 'tsx/esm/api'

const main = await tsImport('./recorderThreadMain.ts', import.meta.url)
main.runRecorderThread()

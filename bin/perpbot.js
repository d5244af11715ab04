#!/usr/bin/env node
// perpbot launcher: runs the TypeScript CLI through tsx (a runtime dependency), so no build step.
import { register } from 'tsx/esm/api'

register()
process.env.PERPBOT_BIN = '1'
await import('../src/cli/main.ts')

/**
 * `perpbot run`'s heap policy from the process's first import, before any other module loads: V8
 * sets its next full collection's limit from the policy in force early, so a policy applied only
 * once `run` has read its settings (~1.5 s in, the modules loaded and the instruments set up) came
 * after that limit, and the start-up peak reached ~255 MB at 1,000 instruments against a steady
 * ~207 MB (with the policy from the first import: ~207 both). `run` applies the configured policy
 * again once its settings are read (cli/run/runtimeNotes.ts), which may differ from this default.
 * Imported for this side effect first thing by cli/main.ts (bin/perpbot.js and the image both load it).
 */
import { DEFAULT_HEAP_GROWTH_PERCENT } from '../settings/heapDefault.ts'
import { applyHeapPolicy } from './heapPolicy.ts'

/**
 * The process is perpbot's command line: launched by bin/perpbot.js (which says so) or as
 * `node …/cli/main.js` (the image). A test runner importing main.ts is not, whatever its arguments.
 */
export const isPerpbotProcess = (argv1: string | undefined, env: NodeJS.ProcessEnv): boolean =>
  env.PERPBOT_BIN === '1' || /[/\\]cli[/\\]main\.[jt]s$/.test(argv1 ?? '')

/** The default policy for `run` (the command is the first argument); nothing for other commands. */
export function applyStartHeapPolicy(argv: readonly string[], perpbot: boolean): boolean {
  if (!perpbot || argv[0] !== 'run') return false
  applyHeapPolicy(DEFAULT_HEAP_GROWTH_PERCENT)
  return true
}

applyStartHeapPolicy(process.argv.slice(2), isPerpbotProcess(process.argv[1], process.env))

/** Test helper: runs `perpbot …` in process with the given environment; collects stdout and stderr. */
import { main } from '../../src/cli/main.ts'

export async function perpbot(
  argv: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = []
  const err: string[] = []
  const code = await main(argv, {
    env,
    stdout: (l) => void out.push(l),
    stderr: (l) => void err.push(l),
    configDir: 'config',
    isTty: false,
    signal: new AbortController().signal,
  })
  return { code, out: out.join('\n'), err: err.join('\n') }
}

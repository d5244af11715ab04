/**
 * What every command gets: the environment (dotenv already applied), output functions, a signal
 * for Ctrl-C, and the config directory. Commands return an exit code; they never call process.exit.
 */
export interface CliContext {
  argv: readonly string[]
  env: Readonly<Record<string, string | undefined>>
  stdout: (line: string) => void
  stderr: (line: string) => void
  configDir: string
  isTty: boolean
  /** Aborted on SIGINT/SIGTERM for commands that do not install their own shutdown. */
  signal: AbortSignal
  /** Asks the operator yes/no (tests answer here; default: the terminal). */
  confirm?: ((question: string) => Promise<boolean>) | undefined
}

/** A command-line usage problem: printed as one line, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError' as const
}

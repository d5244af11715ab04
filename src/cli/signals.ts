/**
 * SIGTERM/SIGINT/SIGHUP for commands that do not install their own shutdown (everything but `run`): the
 * first aborts the command's signal so it can end cleanly (`simulate` writes a partial report); a
 * second ends the process at once with the signal's conventional code.
 */
export interface SignalTarget {
  on(signal: 'SIGTERM' | 'SIGINT' | 'SIGHUP', listener: () => void): unknown
}

export function abortOnSignals(
  abort: AbortController,
  target: SignalTarget,
  exit: (code: number) => void,
): void {
  for (const [signal, code] of [
    ['SIGTERM', 143],
    ['SIGINT', 130],
    ['SIGHUP', 129],
  ] as const) {
    target.on(signal, () => {
      if (abort.signal.aborted) exit(code)
      else abort.abort(new Error(`${signal} received`))
    })
  }
}

/**
 * Graceful shutdown. The first SIGTERM/SIGINT/SIGHUP (a closed terminal or SSH session) runs `onShutdown` (stop actors, cancel or leave orders,
 * flush alerts) under a hard deadline, then exits: 0 when it finished in time, 1 on timeout or error.
 * A second signal (more than a second after the first) while that runs exits at once with 128 + the signal number (130 for SIGINT, 143 for
 * SIGTERM: the shell convention for "killed by signal"). An uncaught exception or unhandled rejection
 * is logged and runs the same shutdown, exiting 1. The deadline must fit inside the orchestrator's
 * grace period (Docker sends SIGKILL 10 s after SIGTERM by default), hence the 10 s cap.
 *
 * Once the exit has been requested a signal is absorbed: the process is already leaving with its code,
 * and a listener removed too early would let Node's default action kill it with 143 instead.
 */
import { constants } from 'node:os'
import { type Clock, systemClock } from '../clock.ts'
import { describeError, InputValidationError } from '../errors.ts'
import { isOneOf } from '../guards.ts'
import { componentLogger, type Logger } from '../logging/logger.ts'

type Listener = (...args: unknown[]) => void

/** A repeated signal this soon after the first is treated as a duplicate delivery. */
export const DUPLICATE_SIGNAL_WINDOW_MS = 1_000

/** The part of `process` this module uses; tests pass an `EventEmitter`. */
export interface ProcessEvents {
  on(event: string, listener: Listener): unknown
  removeListener(event: string, listener: Listener): unknown
}

export const MAX_SHUTDOWN_TIMEOUT_MS = 10_000

/**
 * The signals that stop the bot by its exit policy. SIGHUP is among them: Node resets an inherited
 * "ignore" (nohup) to the default action, which killed the bot with no log line, no exit policy and
 * the dead-man switch left to fire.
 */
export const DEFAULT_SHUTDOWN_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP']

/** Exit code after a failed or timed-out shutdown, or a fatal error. */
export const EXIT_FAILURE = 1

export interface ShutdownOptions {
  /** Default `['SIGTERM', 'SIGINT', 'SIGHUP']`: a hang-up stops the bot by its exit policy too. */
  signals?: readonly NodeJS.Signals[] | undefined
  /** Hard deadline for `onShutdown`, 1..10000 ms. Default 8000. */
  timeoutMs?: number | undefined
  logger: Logger
  /** Stops the bot; receives the reason (a signal name, `uncaughtException`, ...). */
  onShutdown: (reason: string) => Promise<void>
  /** Default `process.exit`. */
  exit?: ((code: number) => void) | undefined
  /** Default `process`. */
  process?: ProcessEvents | undefined
  /** Runs the deadline timer. Default: the system clock. */
  clock?: Clock | undefined
}

/**
 * Calling it removes every listener (an in-flight shutdown still completes); after the exit has been
 * requested the signal listeners stay, as no-ops, until the process is gone. `trigger` starts the same
 * shutdown from code (e.g. the bot stopped on its own) and resolves to the exit code passed to `exit`.
 */
export type ShutdownHandle = (() => void) & {
  trigger(reason: string, exitCode?: number | undefined): Promise<number>
}

/**
 * Installs the signal and fatal-error handlers.
 * @throws {InputValidationError} when `timeoutMs` is outside 1..10000.
 */
export function installShutdown(options: ShutdownOptions): ShutdownHandle {
  const timeoutMs = options.timeoutMs ?? 8_000
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0 || timeoutMs > MAX_SHUTDOWN_TIMEOUT_MS) {
    throw new InputValidationError(
      `shutdown timeout must be 1..${MAX_SHUTDOWN_TIMEOUT_MS} ms, got ${timeoutMs}`,
    )
  }
  const proc: ProcessEvents = options.process ?? process
  const exit = options.exit ?? ((code: number) => process.exit(code))
  const clock = options.clock ?? systemClock
  const signals = options.signals ?? DEFAULT_SHUTDOWN_SIGNALS
  const log = componentLogger(options.logger, 'shutdown')

  let running: Promise<number> | undefined
  let firstSignalAt: number | undefined
  let exited = false
  // A fatal error at any point turns a clean exit into a failure.
  let fatal = false

  const exitOnce = (code: number): void => {
    if (exited) return
    exited = true
    try {
      log.flush()
    } catch {
      // Best effort: the exit must happen regardless.
    }
    exit(code)
  }

  const trigger = (reason: string, exitCode = 0): Promise<number> => {
    if (running) return running
    // A planned stop (a signal, --duration) is news, not a warning; a stop that ends in failure is.
    if (exitCode === 0) log.info({ reason, timeoutMs }, 'shutting down')
    else log.warn({ reason, timeoutMs }, 'shutting down')
    running = new Promise<number>((resolve) => {
      let settled = false
      const finish = (outcome: number, report: () => void): void => {
        if (settled) return
        settled = true
        clock.clearTimeout(timer)
        report()
        const code = fatal && outcome === 0 ? EXIT_FAILURE : outcome
        exitOnce(code)
        resolve(code)
      }
      const timer = clock.setTimeout(() => {
        finish(EXIT_FAILURE, () => log.error({ reason, timeoutMs }, 'shutdown timed out; exiting'))
      }, timeoutMs)
      // Deferred so that a synchronous throw in onShutdown is a rejection like any other.
      Promise.resolve()
        .then(() => options.onShutdown(reason))
        .then(
          () => finish(exitCode, () => log.info({ reason }, 'shutdown complete')),
          (e: unknown) =>
            finish(EXIT_FAILURE, () =>
              log.error({ reason, error: describeError(e) }, 'shutdown failed; exiting'),
            ),
        )
    })
    return running
  }

  const onSignal = (name: NodeJS.Signals): void => {
    // The exit is under way with its own code: a late signal (SIGTERM sent twice) must not change it.
    if (exited) return
    if (!running) {
      firstSignalAt = clock.now()
      void trigger(name)
      return
    }
    // Ctrl-C reaches the whole process group and npm forwards it again: a repeat within a moment is the
    // same request, not an operator insisting.
    if (firstSignalAt !== undefined && clock.now() - firstSignalAt < DUPLICATE_SIGNAL_WINDOW_MS) return
    const code = 128 + (constants.signals[name] ?? 2)
    log.warn({ signal: name, exitCode: code }, 'second signal during shutdown; exiting now')
    exitOnce(code)
  }
  const onFatal =
    (kind: 'uncaughtException' | 'unhandledRejection') =>
    (error: unknown): void => {
      log.fatal({ kind, error: describeError(error), stack: stackOf(error) }, `${kind}; shutting down`)
      fatal = true
      // During a shutdown already under way this only marks the exit as failed; the deadline holds.
      void trigger(kind, EXIT_FAILURE)
    }

  const listeners: [string, Listener][] = [
    ...signals.map((s): [string, Listener] => [s, () => onSignal(s)]),
    ['uncaughtException', onFatal('uncaughtException')],
    ['unhandledRejection', onFatal('unhandledRejection')],
  ]
  for (const [event, fn] of listeners) proc.on(event, fn)

  let installed = true
  const uninstall = (): void => {
    if (!installed) return
    installed = false
    // After the exit request the process is leaving: keep absorbing signals until it is gone.
    for (const [event, fn] of listeners) if (!exited || !isSignal(event)) proc.removeListener(event, fn)
  }
  const isSignal = (event: string): boolean => isOneOf(signals, event)
  return Object.assign(uninstall, { trigger })
}

function stackOf(e: unknown): string | undefined {
  return e instanceof Error ? e.stack : undefined
}

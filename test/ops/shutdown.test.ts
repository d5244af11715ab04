import { EventEmitter } from 'node:events'
import { describe, expect, it, vi } from 'vitest'
import { SimulatedClock } from 'xstate'
import { InputValidationError } from '../../src/errors.ts'
import { createLogger } from '../../src/logging/logger.ts'
import { installShutdown, type ShutdownOptions } from '../../src/ops/shutdown.ts'

function setup(overrides: Partial<ShutdownOptions> = {}) {
  const lines: string[] = []
  const logger = createLogger({ destination: { write: (s: string) => lines.push(s) }, pretty: 'never' })
  const emitter = new EventEmitter()
  const clock = new SimulatedClock()
  const exit = vi.fn<(code: number) => void>()
  const options: ShutdownOptions = {
    logger,
    onShutdown: vi.fn<(reason: string) => Promise<void>>(async () => {}),
    exit,
    process: emitter,
    clock,
    timeoutMs: 5_000,
    ...overrides,
  }
  const handle = installShutdown(options)
  const onShutdown = options.onShutdown
  const logged = (): { level: number; msg: string }[] =>
    lines.map((l) => JSON.parse(l) as { level: number; msg: string })
  return { emitter, clock, exit, onShutdown, handle, logged }
}

/** A promise the test settles by hand. */
function deferred(): { promise: Promise<void>; resolve: () => void; reject: (e: unknown) => void } {
  let resolve!: () => void
  let reject!: (e: unknown) => void
  const promise = new Promise<void>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

describe('installShutdown', () => {
  it('runs onShutdown once on the first signal and exits 0 when it finishes in time', async () => {
    const t = setup()
    t.emitter.emit('SIGTERM', 'SIGTERM')
    const code = await t.handle.trigger('ignored: already running')
    expect(code).toBe(0)
    expect(t.onShutdown).toHaveBeenCalledTimes(1)
    expect(t.onShutdown).toHaveBeenCalledWith('SIGTERM')
    expect(t.exit).toHaveBeenCalledTimes(1)
    expect(t.exit).toHaveBeenCalledWith(0)
    expect(t.logged().map((l) => l.msg)).toEqual(['shutting down', 'shutdown complete'])
    // A planned stop is logged at info (30), not as a warning.
    expect(t.logged()[0]?.level).toBe(30)
  })

  it('logs a stop that will exit with a failure code (a lost fleet lease) as a warning', async () => {
    const t = setup()
    await t.handle.trigger('fleet lease lost', 75)
    expect(t.exit).toHaveBeenCalledWith(75)
    expect(t.logged()[0]).toMatchObject({ msg: 'shutting down', level: 40 })
  })

  it('exits 1 at the deadline when onShutdown hangs, not a millisecond before', async () => {
    const t = setup({ onShutdown: vi.fn(() => new Promise<void>(() => {})) })
    t.emitter.emit('SIGINT')
    const done = t.handle.trigger('x')
    await Promise.resolve()
    t.clock.increment(4_999)
    expect(t.exit).not.toHaveBeenCalled()
    t.clock.increment(1)
    expect(await done).toBe(1)
    expect(t.exit).toHaveBeenCalledExactlyOnceWith(1)
    expect(t.logged().some((l) => l.msg === 'shutdown timed out; exiting' && l.level === 50)).toBe(true)
  })

  it('does not exit again, or log success, when onShutdown completes after the deadline', async () => {
    const late = deferred()
    const t = setup({ onShutdown: vi.fn(() => late.promise) })
    const done = t.handle.trigger('manual')
    t.clock.increment(5_000)
    expect(await done).toBe(1)
    late.resolve()
    await late.promise
    await Promise.resolve()
    expect(t.exit).toHaveBeenCalledTimes(1)
    expect(t.logged().map((l) => l.msg)).not.toContain('shutdown complete')
  })

  it('exits 1 when onShutdown rejects or throws synchronously', async () => {
    const rejecting = setup({ onShutdown: vi.fn(async () => Promise.reject(new Error('cancel-all failed'))) })
    rejecting.emitter.emit('SIGTERM')
    expect(await rejecting.handle.trigger('x')).toBe(1)
    expect(rejecting.exit).toHaveBeenCalledExactlyOnceWith(1)
    expect(rejecting.logged().find((l) => l.msg === 'shutdown failed; exiting')).toMatchObject({
      error: 'Error: cancel-all failed',
    })

    const throwing = setup({
      onShutdown: vi.fn((): Promise<void> => {
        throw new Error('boom')
      }),
    })
    expect(await throwing.handle.trigger('manual')).toBe(1)
    expect(throwing.exit).toHaveBeenCalledExactlyOnceWith(1)
  })

  it('forces an immediate exit with 128 + signal number on a second signal', async () => {
    const pending = deferred()
    const t = setup({ onShutdown: vi.fn(() => pending.promise) })
    t.emitter.emit('SIGTERM')
    t.clock.increment(1_000)
    t.emitter.emit('SIGINT')
    expect(t.exit).toHaveBeenCalledExactlyOnceWith(130)
    // The graceful path finishing later must not exit a second time.
    pending.resolve()
    await t.handle.trigger('x')
    expect(t.exit).toHaveBeenCalledTimes(1)
    expect(t.onShutdown).toHaveBeenCalledTimes(1)

    const again = setup({ onShutdown: vi.fn(() => new Promise<void>(() => {})) })
    again.emitter.emit('SIGTERM')
    again.clock.increment(2_000)
    again.emitter.emit('SIGTERM')
    expect(again.exit).toHaveBeenCalledExactlyOnceWith(143)
  })

  it('treats a repeat within a second as the same request (Ctrl-C via npm arrives twice)', async () => {
    const pending = deferred()
    const t = setup({ onShutdown: vi.fn(() => pending.promise) })
    t.emitter.emit('SIGINT')
    t.clock.increment(20)
    t.emitter.emit('SIGINT')
    expect(t.exit).not.toHaveBeenCalled()
    pending.resolve()
    expect(await t.handle.trigger('x')).toBe(0)
    expect(t.exit).toHaveBeenCalledExactlyOnceWith(0)
  })

  it('absorbs a signal that arrives after the exit was requested, even once uninstalled', async () => {
    // The CLI uninstalls in its exit callback and then drains for a moment: a second SIGTERM 0.1 s
    // after a quick shutdown used to find no listener, and Node's default killed the process (143).
    const emitter = new EventEmitter()
    const clock = new SimulatedClock()
    let uninstall: (() => void) | undefined
    const exit = vi.fn<(code: number) => void>(() => uninstall?.())
    const handle = installShutdown({
      logger: createLogger({ destination: { write: () => true }, pretty: 'never' }),
      onShutdown: async () => {},
      exit,
      process: emitter,
      clock,
    })
    uninstall = handle
    emitter.emit('SIGTERM')
    expect(await handle.trigger('x')).toBe(0)
    clock.increment(100)
    expect(emitter.listenerCount('SIGTERM')).toBe(1)
    expect(emitter.listenerCount('uncaughtException')).toBe(0)
    emitter.emit('SIGTERM')
    emitter.emit('SIGINT')
    expect(exit).toHaveBeenCalledExactlyOnceWith(0)
  })

  it('is idempotent: repeated triggers share one run and one exit', async () => {
    const t = setup()
    const a = t.handle.trigger('first')
    const b = t.handle.trigger('second')
    expect(b).toBe(a)
    expect(await a).toBe(0)
    expect(t.onShutdown).toHaveBeenCalledExactlyOnceWith('first')
    expect(t.exit).toHaveBeenCalledTimes(1)
  })

  it('logs an uncaught exception and shuts down with exit code 1', async () => {
    const t = setup()
    t.emitter.emit('uncaughtException', new Error('kaboom'))
    expect(await t.handle.trigger('x')).toBe(1)
    expect(t.onShutdown).toHaveBeenCalledExactlyOnceWith('uncaughtException')
    expect(t.exit).toHaveBeenCalledExactlyOnceWith(1)
    const fatal = t.logged().find((l) => l.level === 60)
    expect(fatal).toMatchObject({ kind: 'uncaughtException', error: 'Error: kaboom' })
  })

  it('logs an unhandled rejection and shuts down with exit code 1', async () => {
    const t = setup()
    t.emitter.emit('unhandledRejection', 'not an Error')
    expect(await t.handle.trigger('x')).toBe(1)
    expect(t.onShutdown).toHaveBeenCalledExactlyOnceWith('unhandledRejection')
    expect(t.logged().find((l) => l.level === 60)).toMatchObject({ error: 'not an Error' })
  })

  it('turns a clean signal shutdown into exit 1 when a fatal error happens meanwhile', async () => {
    const pending = deferred()
    const t = setup({ onShutdown: vi.fn(() => pending.promise) })
    t.emitter.emit('SIGTERM')
    t.emitter.emit('unhandledRejection', new Error('late'))
    pending.resolve()
    expect(await t.handle.trigger('x')).toBe(1)
    expect(t.onShutdown).toHaveBeenCalledTimes(1)
    expect(t.exit).toHaveBeenCalledExactlyOnceWith(1)
  })

  it('uninstall removes every listener and can be called twice', () => {
    const t = setup({ signals: ['SIGTERM', 'SIGINT', 'SIGHUP'] })
    for (const e of ['SIGTERM', 'SIGINT', 'SIGHUP', 'uncaughtException', 'unhandledRejection']) {
      expect(t.emitter.listenerCount(e)).toBe(1)
    }
    t.handle()
    t.handle()
    expect(t.emitter.eventNames()).toEqual([])
    t.emitter.emit('SIGTERM')
    expect(t.onShutdown).not.toHaveBeenCalled()
  })

  it('leaves the real process alone when an emitter is injected', () => {
    const before = process.listenerCount('SIGTERM')
    const t = setup()
    expect(process.listenerCount('SIGTERM')).toBe(before)
    t.handle()
  })

  it('rejects a deadline above 10 s or not positive', () => {
    expect(() => setup({ timeoutMs: 10_001 })).toThrow(InputValidationError)
    expect(() => setup({ timeoutMs: 0 })).toThrow(InputValidationError)
    expect(() => setup({ timeoutMs: 10_000 })).not.toThrow()
  })
})

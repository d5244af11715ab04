/**
 * Commands to a running bot — pause, resume, cancel-all, flatten, reload, stop — from the command
 * line, the dashboard or a phone, all through `run`. Each is idempotent (the same command twice
 * changes nothing the second time, and says so) and journaled as an `info` alert naming what, when
 * and from where (the alert hub writes it to the log, the journal and the webhook).
 *
 * - pause [instrument]: held halted (orders cancelled, no quotes) until resume.
 * - resume [instrument]: the pause lifted; without an instrument also every protection breach.
 * - cancel-all: every open order of ours cancelled once; instruments not paused quote again.
 * - flatten [instrument]: paused, then each position closed by a reduce-only IOC at a bounded price.
 * - reload: the configuration read again (reloadConfig.ts): new strategy parameters applied to their
 *   instruments at once, instruments removed held halted, instruments added started (admission).
 * - stop: the process stops by its exit policy (the CLI listens on `stopRequested`).
 */
import type { AlertSink } from '../../alerts/alert.ts'
import type { Clock } from '../../clock.ts'
import { describeError } from '../../errors.ts'
import { componentLogger, type Logger } from '../../logging/logger.ts'
import type { Settings } from '../../settings/schema.ts'
import type { ResolvedInstrumentConfig } from '../actors/instrumentActors.ts'
import type { InstrumentEvent } from '../instrument/instrument.machine.ts'
import { createSignal, type Signal } from '../shared/signal.ts'
import type { Flattener } from './flatten.ts'
import type { HeldInstrument, Holds } from './holds.ts'
import type { Protections } from './protections.ts'
import { applyReload, type ReloadTargets, strategyKey } from './reloadConfig.ts'

export const CONTROL_COMMANDS = ['pause', 'resume', 'cancel-all', 'flatten', 'reload', 'stop'] as const
export type ControlCommand = (typeof CONTROL_COMMANDS)[number]

export interface ControlRequest {
  command: ControlCommand
  /** A traded symbol (pause, resume, flatten); absent: every instrument. */
  instrument?: string | undefined
  /** Where it came from, for the journal: `cli 127.0.0.1`, `dashboard 10.0.0.5`, `telegram chat 42`. */
  from: string
}

export interface ControlReply {
  ok: boolean
  command: ControlCommand
  /** Whether anything changed (false: already so; the command is idempotent). */
  changed: boolean
  /** One sentence for the terminal, the page or the phone. */
  message: string
  /** Per instrument, where it says more (flatten, reload). */
  lines?: string[] | undefined
}

/** The configuration read again (`perpbot reload`): the CLI's loader, strategies resolved. */
export interface ConfigSource {
  read(): Promise<{ settings: Settings; strategies: readonly ResolvedInstrumentConfig[] }>
}

export interface BotControl {
  run(request: ControlRequest): Promise<ControlReply>
  /** A `stop` command: the reason; the process owner stops by the exit policy. */
  readonly stopRequested: Pick<Signal<string>, 'subscribe'>
  /** What is held and why (for /status). */
  held(): HeldInstrument[]
}

/** The venue's symbol a configured one resolves to is the same string (start-up checked it). */
export function createBotControl(o: {
  settings: Settings
  clock: Clock
  log: Logger
  alerts: AlertSink
  holds: Holds
  protections: Protections
  flattener: Flattener
  orders: { readonly gateway: { cancelAll(instrumentId: number | undefined): Promise<void> } }
  actors: ReloadTargets['actors'] & {
    route(ids: readonly number[] | undefined, event: InstrumentEvent): void
  }
  /** The strategies the bot started with (a reload that leaves one as it was changes nothing). */
  strategies: readonly ResolvedInstrumentConfig[]
  /** Absent: `reload` answers that it cannot (simulate, tests). */
  configSource?: ConfigSource | undefined
  /** Starts an instrument a reload adds (startup/instrumentAdmission.ts). */
  admission: ReloadTargets['admission']
}): BotControl {
  const log = componentLogger(o.log, 'control')
  const stopRequested = createSignal<string>()
  let seq = 0
  let stopping = false
  /** Each traded symbol's strategy as last applied (strategyKey). */
  const applied = new Map(o.strategies.map((s) => [s.symbol, strategyKey(s.strategy, o.settings)]))
  const idOf = (symbol: string | undefined): number | undefined =>
    o.actors.instruments.find((i) => i.symbol === symbol)?.id
  const traded = (): string => o.actors.instruments.map((i) => i.symbol).join(', ')
  const scope = (symbol: string | undefined): string => symbol ?? 'every instrument'

  const journal = (r: ControlRequest, reply: ControlReply): void => {
    seq += 1
    o.alerts.send({
      key: `control:${o.clock.now()}:${seq}`,
      severity: 'info',
      title: `Operator ${r.command}${r.instrument ? ` ${r.instrument}` : ''} (from ${r.from})`,
      message: reply.message,
      details: {
        command: r.command,
        ...(r.instrument ? { instrument: r.instrument } : {}),
        from: r.from,
        ok: reply.ok,
        changed: reply.changed,
      },
      at: o.clock.now(),
    })
  }

  const exec = async (r: ControlRequest): Promise<ControlReply> => {
    const reply = (ok: boolean, changed: boolean, message: string, lines?: string[]): ControlReply => ({
      ok,
      command: r.command,
      changed,
      message,
      lines,
    })
    const id = idOf(r.instrument)
    if (r.instrument !== undefined && id === undefined)
      return reply(false, false, `not a traded instrument: ${r.instrument} (traded: ${traded()})`)
    const ids = id === undefined ? undefined : [id]
    switch (r.command) {
      case 'pause': {
        const changed = o.holds.set('pause', ids, 'paused by the operator')
        return changed.length === 0
          ? reply(true, false, `${scope(r.instrument)}: already paused`)
          : reply(true, true, `paused ${scope(r.instrument)}: orders cancelled, no quotes until resume`)
      }
      case 'resume': {
        const changed = o.holds.set('pause', ids, undefined)
        const resumed = r.instrument === undefined ? o.protections.resume() : []
        // A notional still over its cap halts again at once: say so now, not a second later.
        const again = resumed.length > 0 ? o.protections.check() : []
        const still = o.holds.snapshot().filter((h) => ids === undefined || ids.includes(h.id))
        const parts: string[] = []
        if (changed.length > 0) parts.push(`resumed ${scope(r.instrument)}`)
        if (resumed.length > 0)
          parts.push(`lifted protection halt(s): ${resumed.map((b) => b.limit).join(', ')}`)
        if (parts.length === 0) parts.push(`${scope(r.instrument)}: not paused`)
        const held = [
          ...again.map((b) => `halted again: ${b.message} (flatten, or raise the cap and restart)`),
          ...still.map((h) => `${h.symbol} still held: ${h.reasons.map((x) => x.reason).join('; ')}`),
        ]
        return reply(
          true,
          changed.length + resumed.length > 0,
          parts.join('; '),
          held.length > 0 ? held : undefined,
        )
      }
      case 'cancel-all': {
        await o.orders.gateway.cancelAll(undefined)
        return reply(
          true,
          true,
          'cancelled every open order of ours; instruments not paused quote again at their next plan',
        )
      }
      case 'flatten': {
        o.holds.set('pause', ids, 'paused by the operator (flatten)')
        const lines = await o.flattener.flatten(ids)
        const sent = lines.filter((l) => l.outcome === 'sent').length
        return reply(
          lines.every((l) => l.outcome === 'sent' || l.outcome === 'flat'),
          sent > 0,
          sent === 0
            ? `${scope(r.instrument)} paused; nothing to close`
            : `${scope(r.instrument)} paused; ${sent} reduce-only IOC order(s) sent`,
          lines.map((l) => `${l.symbol}: ${l.outcome}, ${l.detail}`),
        )
      }
      case 'reload':
        return reload(reply)
      case 'stop': {
        if (stopping) return reply(true, false, 'already stopping')
        stopping = true
        // After the reply is on its way: the stop closes the server that answers.
        setImmediate(() => stopRequested.emit(`stop command (from ${r.from})`))
        return reply(true, true, `stopping by the exit policy (${o.settings.ops.exitPolicy})`)
      }
    }
  }

  const reload = async (
    reply: (ok: boolean, changed: boolean, message: string, lines?: string[]) => ControlReply,
  ): Promise<ControlReply> => {
    if (o.configSource === undefined) return reply(false, false, 'reload is not available in this process')
    let next: Awaited<ReturnType<ConfigSource['read']>>
    try {
      next = await o.configSource.read()
    } catch (e) {
      return reply(false, false, `the configuration was not reloaded: ${describeError(e)}`)
    }
    const { changed, lines, refused } = await applyReload(o, next, applied)
    const message = `configuration reloaded (${next.strategies.length} instrument(s))${refused > 0 ? `; ${refused} added instrument(s) not started` : ''}`
    return reply(refused === 0, changed, message, lines)
  }

  return {
    async run(r) {
      let result: ControlReply
      try {
        result = await exec(r)
      } catch (e) {
        result = {
          ok: false,
          command: r.command,
          changed: false,
          message: `${r.command} failed: ${describeError(e)}`,
        }
      }
      log[result.ok ? 'info' : 'warn'](
        { command: r.command, instrument: r.instrument, from: r.from, changed: result.changed },
        `${r.command}${r.instrument ? ` ${r.instrument}` : ''} from ${r.from}: ${result.message}`,
      )
      journal(r, result)
      return result
    },
    stopRequested,
    held: () => o.holds.snapshot(),
  }
}

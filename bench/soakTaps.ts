/**
 * The soak's taps on what streams by (bench/soak.ts): every request and command on the wire, every log
 * line, and the instruments' states as sampled. Each counts and keeps a bounded tail; the soak's checks
 * and summary read them.
 */
import { rateLimitCode, type WireExchange } from '../src/sim/botOnMock.ts'
import type { SecretsScanner } from './secretsScan.ts'

/** Signatures are remembered for this much virtual time (twice the venue's replay window): a copy sent
 * later would be refused as expired anyway, and the set stays bounded over a long run. */
const SIG_WINDOW_MS = 10 * 60_000

/** Requests and commands as the mock saw them: counts, self-caused 429s, signatures sent twice. */
export class WireTap {
  commands = 0
  readonly commandsByPath = new Map<string, number>()
  commandErrors = 0
  expired = 0
  duplicateSigs = 0
  rateLimitedSelf = 0
  rateLimitedInjected = 0
  readonly selfDetails = new Map<string, number>()
  requests = 0
  readonly #sigs = new Map<string, number>()
  readonly #now: () => number

  /** `now`: the virtual time (read when a signature is first seen). */
  constructor(now: () => number) {
    this.#now = now
  }

  readonly onExchange = ({ req, res, fault, command }: WireExchange): void => {
    this.requests += 1
    if (command) {
      this.commands += 1
      const key = `${req.method} ${req.path}`
      this.commandsByPath.set(key, (this.commandsByPath.get(key) ?? 0) + 1)
      if (res.status >= 400) this.commandErrors += 1
      if (res.status === 400 && JSON.stringify(res.body ?? '').includes('expired')) this.expired += 1
      const sig = (req.body as { sig?: unknown } | undefined)?.sig
      if (typeof sig === 'string') {
        if (this.#sigs.has(sig)) this.duplicateSigs += 1
        else this.#sigs.set(sig, this.#now())
      }
    }
    if (res.status === 429) {
      if (fault === undefined) {
        this.rateLimitedSelf += 1
        const key = `${req.method} ${req.path} ${rateLimitCode(res)}`
        this.selfDetails.set(key, (this.selfDetails.get(key) ?? 0) + 1)
      } else this.rateLimitedInjected += 1
    }
  }

  /** Forgets signatures older than the window (they are held in the order they were first seen). */
  pruneSigs(): void {
    const cutoff = this.#now() - SIG_WINDOW_MS
    for (const [sig, at] of this.#sigs) {
      if (at >= cutoff) break
      this.#sigs.delete(sig)
    }
  }

  /** Commands sent to the trade endpoints. */
  tradeCommands(): number {
    return [...this.commandsByPath].filter(([k]) => k.includes('/v1/trade/')).reduce((a, [, v]) => a + v, 0)
  }
}

const LEVELS: Record<number, string> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
}

/** Log lines: counted by level, scanned for secrets, the last `keep` warnings and errors kept. */
export class LogTap {
  readonly counts = new Map<string, number>()
  readonly recentProblems: string[] = []
  readonly #scanner: SecretsScanner
  readonly #keep: number

  constructor(scanner: SecretsScanner, keep: number) {
    this.#scanner = scanner
    this.#keep = keep
  }

  readonly onLine = (line: string): void => {
    this.#scanner.scan('log', line)
    const level = /"level":(\d+)/.exec(line)?.[1]
    const name = LEVELS[Number(level)] ?? 'other'
    this.counts.set(name, (this.counts.get(name) ?? 0) + 1)
    if (name === 'warn' || name === 'error' || name === 'fatal') {
      this.recentProblems.push(line.trim().slice(0, 300))
      if (this.recentProblems.length > this.#keep) this.recentProblems.shift()
    }
  }
}

/** An instrument as `/status` shows it, as far as the state sample reads it. */
export interface SampledInstrument {
  symbol: string
  state: string
  reason?: string | undefined
}

/** The instruments' states as sampled: quoting share, halt reasons, actors seen stopped. */
export class StateTap {
  /** Instrument-samples and how many of them were in an active (quoting) state. */
  samples = 0
  active = 0
  readonly seenStopped = new Set<string>()
  readonly #haltReasons = new Map<string, number>()

  /** Counts one sample of every instrument; returns how many are in each state. */
  sample(instruments: readonly SampledInstrument[]): Map<string, number> {
    const states = new Map<string, number>()
    for (const i of instruments) {
      states.set(i.state, (states.get(i.state) ?? 0) + 1)
      if (i.state === 'stopped') this.seenStopped.add(i.symbol)
      this.samples += 1
      if (i.state.startsWith('active')) this.active += 1
      else if (i.state.startsWith('halted')) {
        // "index stale (16 s old); margin stale (31 s old)" → "index stale; margin stale"
        const reason = (i.reason ?? '?').replace(/\s*\([^)]*\)/g, '')
        this.#haltReasons.set(reason, (this.#haltReasons.get(reason) ?? 0) + 1)
      }
    }
    return states
  }

  /** The share of samples in which quoting was allowed, e.g. "97 %" ("n/a" before any sample). */
  quotingShare(): string {
    return this.samples === 0 ? 'n/a' : `${((100 * this.active) / this.samples).toFixed(0)} %`
  }

  /** The four commonest halt reasons with their shares of the halted samples. */
  haltSummary(): string {
    const halted = [...this.#haltReasons.values()].reduce((a, b) => a + b, 0)
    if (halted === 0) return 'never halted'
    return [...this.#haltReasons]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 4)
      .map(([k, v]) => `${k} ${((100 * v) / halted).toFixed(0)} %`)
      .join('; ')
  }
}

/**
 * perpbot command line. `dotenv` is loaded here and only here; every command gets the environment
 * and output functions through `CliContext`. Errors end as one clear message and an exit code:
 * 2 for bad usage or configuration, 1 for everything else — never a bare stack trace.
 */
// First: `run`'s heap policy before any other module loads (startHeap.ts says why).
import './startHeap.ts'
import { readFileSync } from 'node:fs'
import { basename, dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { config as loadDotenv } from 'dotenv'
import { BotError, ConfigError, describeError } from '../errors.ts'
import { errorMessage, fieldOf } from '../guards.ts'
import { SecretBag } from '../logging/logger.ts'
import { SCRUBBED_ENV_NAMES } from '../settings/schema.ts'
import { StrategyLoadError } from '../strategy/registryErrors.ts'
import { guardBrokenPipe } from './brokenPipe.ts'
import { type CliContext, UsageError } from './context.ts'
import { abortOnSignals } from './signals.ts'

/** The checkout's root: two folders up from `src/cli/`, three from the build's `dist/src/cli/`. */
const ROOT = ((up: string) => (basename(up) === 'dist' ? dirname(up) : up))(
  resolve(dirname(fileURLToPath(import.meta.url)), '..', '..'),
)

/** The package version, from package.json. */
export function version(): string {
  const pkg: unknown = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8'))
  return typeof pkg === 'object' && pkg !== null && 'version' in pkg ? String(pkg.version) : 'unknown'
}

export const USAGE = `usage: perpbot <command> [options]

commands:
  run            the bot (default: dry run against the embedded mock; --live for the venue)
  mock           the standalone mock exchange (both interfaces) on 127.0.0.1
  simulate       the bot against the mock on a virtual clock, as fast as possible; an HTML report
                 (--data DIR replays a dataset instead of the mock's invented market)
  download       history (klines, trades, funding) into a dataset folder, resumable
  record         the public stream (tickers, best bid/offer, trades) into a dataset folder
  sweep          replayed backtests over a parameter grid on worker threads; ranked CSV + heatmap
  compare        the page comparing two runs (files from simulate --json)
  create-proxy   register a proxy key signed by the owner key; prints the secret once
  withdraw       withdraw pUSD to the owner wallet (owner-signed; shows the fee, asks first)
  revoke-proxy   revoke a proxy key (owner-signed)
  account-stats  the account's 7-day volumes and maker share
  rotate-key     --live: a new proxy key for the running bot, the old one revoked after the switch
  doctor         preflight checks of the venue, the credentials and the account (--live)
  status         one-shot account and margin view (of the running bot, or --live the venue)
  events         query the event catalogue (filters, cursor paging; table or --format ndjson)
  config         validate the configuration; --explain prints it with secrets redacted
  report         PnL, fees, funding, volume, drawdown, alerts per day or instrument, from the journal

commands to the running bot (--bot URL, the ops token):
  pause          hold instruments halted, orders cancelled (--instrument S: one)
  resume         lift a pause, and every protection halt (--instrument S: one pause only)
  cancel-all     cancel every open order of ours once
  flatten        pause, then close positions with reduce-only IOC orders at a bounded price
  reload         read the configuration again (strategy parameters, instruments removed)
  stop           stop the bot by its exit policy

run 'perpbot <command> --help' for a command's options; 'perpbot --version' prints the version.

exit codes: 0 success; 1 runtime failure (including a live stop whose cancel-all failed);
            2 usage or configuration error (nothing was sent)`

export async function main(argv: readonly string[], raw: Omit<CliContext, 'argv'>): Promise<number> {
  const [command, ...rest] = argv
  // Errors on stderr and what a command prints (reports, status, events) pass the one scrubber too
  // (the environment's secrets, issue 34); `create-proxy` prints the secret it made, on purpose.
  const secrets = new SecretBag(SCRUBBED_ENV_NAMES.map((k) => raw.env[k]))
  const ctx = {
    ...raw,
    stdout: command === 'create-proxy' ? raw.stdout : (line: string) => raw.stdout(secrets.scrub(line)),
    stderr: (line: string) => raw.stderr(secrets.scrub(line)),
  }
  // Bare `perpbot` used to start a dry run; it prints the usage instead (exit 2: nothing was asked for).
  if (command === undefined) {
    ctx.stderr(USAGE)
    return 2
  }
  const sub: CliContext = { ...ctx, argv: rest }
  // `perpbot <command> --version` answers like `perpbot --version`, whatever the command.
  if (rest.includes('--version') && !rest.includes('--')) {
    ctx.stdout(`perpbot ${version()}`)
    return 0
  }
  try {
    // Each command's module is imported when that command runs: `--version` and `--help` load nothing
    // else, and a command loads only its own part of the tree.
    switch (command) {
      case 'run':
        return await (await import('./run.ts')).runCommand(sub, version())
      case 'mock':
        return await (await import('../mock/standalone.ts')).runStandaloneMock(rest, {
          stdout: ctx.stdout,
          stderr: ctx.stderr,
        })
      case 'simulate':
        return await (await import('./research/simulate.ts')).simulateCommand(sub, version())
      case 'download':
        return await (await import('./research/download.ts')).downloadCommand(sub)
      case 'record':
        return await (await import('./research/record.ts')).recordCommand(sub)
      case 'sweep':
        return await (await import('./research/sweep.ts')).sweepCommand(sub, version())
      case 'compare':
        return (await import('./report/compare.ts')).compareCommand(sub)
      case 'create-proxy':
        return await (await import('./account/createProxy.ts')).createProxyCommand(sub)
      case 'withdraw':
        return await (await import('./account/accountAdmin.ts')).withdrawCommand(sub)
      case 'revoke-proxy':
        return await (await import('./account/accountAdmin.ts')).revokeProxyCommand(sub)
      case 'account-stats':
        return await (await import('./account/accountAdmin.ts')).accountStatsCommand(sub)
      case 'rotate-key':
        return await (await import('./account/rotateKey.ts')).rotateKeyCommand(sub)
      case 'doctor':
        return await (await import('./doctor.ts')).doctorCommand(sub)
      case 'status':
        return await (await import('./status.ts')).statusCommand(sub)
      case 'events':
        return await (await import('./events.ts')).eventsCommand(sub)
      case 'config':
        return await (await import('./configExplain.ts')).configCommand(sub)
      case 'report':
        return await (await import('./report/report.ts')).reportCommand(sub)
      case 'pause':
      case 'resume':
      case 'cancel-all':
      case 'flatten':
      case 'reload':
      case 'stop':
        return await (await import('./control.ts')).controlCommand(sub, command)
      case 'help':
      case '--help':
      case '-h':
        ctx.stdout(USAGE)
        return 0
      case '--version':
      case '-v':
      case 'version':
        ctx.stdout(`perpbot ${version()}`)
        return 0
      default:
        ctx.stderr(`perpbot: unknown command '${command}'\n\n${USAGE}`)
        return 2
    }
  } catch (e) {
    return report(e, command, ctx.stderr)
  }
}

function report(e: unknown, command: string, stderr: (line: string) => void): number {
  if (e instanceof ConfigError) {
    stderr(`perpbot ${command}: ${e.shortMessage}`)
    for (const issue of e.issues) stderr(`  - ${issue}`)
    return 2
  }
  if (e instanceof UsageError || fieldOf(e, 'code') === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    stderr(`perpbot ${command}: ${errorMessage(e)} (see 'perpbot ${command} --help')`)
    return 2
  }
  if (String(fieldOf(e, 'code') ?? '').startsWith('ERR_PARSE_ARGS')) {
    stderr(`perpbot ${command}: ${errorMessage(e)}`)
    return 2
  }
  // A strategy module that cannot load is the configuration's problem (nothing was started or sent).
  if (e instanceof StrategyLoadError) {
    stderr(`perpbot ${command}: ${e.shortMessage}`)
    for (const d of e.details) stderr(`  ${d}`)
    return 2
  }
  if (e instanceof BotError) {
    stderr(`perpbot ${command}: ${e.shortMessage}`)
    for (const d of e.details) stderr(`  ${d}`)
    return 1
  }
  stderr(`perpbot ${command}: ${describeError(e)}`)
  if (process.env.PERPBOT_DEBUG) stderr(String(fieldOf(e, 'stack') ?? ''))
  return 1
}

const isEntry = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)
if (isEntry || process.env.PERPBOT_BIN === '1') {
  loadDotenv({ path: resolve(ROOT, '.env'), quiet: true })
  const abort = new AbortController()
  const command = process.argv[2] ?? 'help'
  // `run` and `mock` handle their own signals (the bot's exit policy; the mock's clean close).
  if (command !== 'run' && command !== 'mock') abortOnSignals(abort, process, (code) => process.exit(code))
  const out = guardBrokenPipe({
    stream: process.stdout,
    onBroken: () => {
      abort.abort()
      if (command !== 'run') process.exit(0)
    },
  })
  const code = await main(process.argv.slice(2), {
    env: process.env,
    stdout: (line) => out.write(line),
    stderr: (line) => process.stderr.write(`${line}\n`),
    configDir: resolve(ROOT, 'config'),
    isTty: process.stdout.isTTY === true,
    signal: abort.signal,
  })
  process.exitCode = code
  // Let stdout drain; anything still holding the loop (a stray socket) must not keep us alive.
  setTimeout(() => process.exit(code), 200).unref()
}

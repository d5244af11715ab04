/**
 * `perpbot doctor [--live]`: the preflight checks, one line each, in order; exit 0 only when none
 * failed. Without `--live` it rehearses against a throwaway embedded mock with a freshly registered
 * proxy, so the output shows what a healthy venue looks like.
 */
import { parseArgs } from 'node:util'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { resolveStrategies } from '../bot/startup/resolveConfig.ts'
import { systemClock } from '../clock.ts'
import { journalTarget } from '../journal/database.ts'
import { startMockServer } from '../mock/server.ts'
import { createPerpsClient } from '../perps/client/createPerpsClient.ts'
import { CommandSigner } from '../perps/signing/commandSigner.ts'
import { perpsDomainFromExchangeInfo } from '../perps/signing/domain.ts'
import { SaltSource } from '../perps/signing/salt.ts'
import { journalIntegrityLine } from '../preflight/journalCheck.ts'
import { formatCheckLine, preflightFailed, runPreflight } from '../preflight/preflight.ts'
import { systemRandom } from '../random.ts'
import { loadSettings } from '../settings/load.ts'
import { type CliContext, UsageError } from './context.ts'

export const DOCTOR_USAGE = `usage: perpbot doctor [--live] [--config FILE] [--ops-port N]
  Checks, in order: venue reachable, clock skew, exchange domain, proxy credentials and days to expiry,
  account readable, configured instruments listed, open orders the bot did not place, open-order
  capacity, weight tier, a signed self-test per command kind, the stream address (PERPS_WS_URL when
  streams are on), the ops port free. Exit 0 only when none failed.
  --live         check the venue at PERPS_URL with PERPS_PROXY_PRIVATE_KEY / PERPS_PROXY_SECRET
                 (default: a rehearsal against a throwaway embedded mock)
  --ops-port N   the ops port to check (default: ops.port from the config)`

export async function doctorCommand(ctx: CliContext): Promise<number> {
  const { values } = parseArgs({
    args: [...ctx.argv],
    options: {
      live: { type: 'boolean', default: false },
      config: { type: 'string' },
      'ops-port': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  })
  if (values.help) {
    ctx.stdout(DOCTOR_USAGE)
    return 0
  }
  const overrides: Record<string, unknown> = {}
  if (values['ops-port'] !== undefined) {
    const port = Number(values['ops-port'])
    if (!Number.isInteger(port) || port < 0 || port > 65_535)
      throw new UsageError('--ops-port must be 0..65535')
    overrides['ops.port'] = port
  }
  const { settings, secrets } = loadSettings({
    configDir: ctx.configDir,
    mode: values.live ? 'live' : 'dry-run',
    file: values.config,
    overrides,
    env: ctx.env,
    // Missing proxy credentials are reported as a check line, not a config error.
    needs: ['perpsUrl'],
  })
  // Strategies and their params are checked too (a bad one is a config error, exit 2).
  const strategies = await resolveStrategies(settings)
  let perpsUrl = secrets.PERPS_URL ?? settings.perps.url
  let streamUrl = secrets.PERPS_WS_URL
  let key = secrets.PERPS_PROXY_PRIVATE_KEY
  let secret = secrets.PERPS_PROXY_SECRET
  let closeMock = async (): Promise<void> => undefined
  if (!values.live) {
    const mock = await startMockServer({ port: 0 })
    closeMock = () => mock.close()
    perpsUrl = mock.url
    streamUrl = mock.wsUrl
    ;({ key, secret } = await rehearsalProxy(mock.url))
    ctx.stderr(`rehearsal against a throwaway embedded mock at ${mock.url} (use --live for the venue)`)
  }
  if (!perpsUrl) throw new UsageError('--live needs PERPS_URL')
  try {
    const lines = await runPreflight({
      settings,
      maxOrders: new Map(strategies.map((i) => [i.symbol, i.strategy.maxOrders])),
      perpsUrl,
      proxyPrivateKey: key,
      proxySecret: secret,
      streamUrl,
      checkStream: true,
      clock: systemClock,
      random: systemRandom,
    })
    lines.push(
      await journalIntegrityLine(
        settings.journal.enabled
          ? journalTarget({ stateDir: settings.ops.stateDir, mode: settings.mode, env: ctx.env })
          : undefined,
      ),
    )
    for (const l of lines) ctx.stdout(formatCheckLine(l))
    const failed = preflightFailed(lines)
    ctx.stdout(failed ? 'doctor: some checks failed' : 'doctor: all checks passed')
    return failed ? 1 : 0
  } finally {
    await closeMock()
  }
}

/** Days the rehearsal's throwaway proxy key lives. */
const REHEARSAL_KEY_DAYS = 30

/** Registers a fresh proxy on the rehearsal mock, as a dry run does. */
async function rehearsalProxy(url: string): Promise<{ key: string; secret: string }> {
  const client = createPerpsClient({ baseUrl: url, clock: systemClock, random: systemRandom })
  try {
    const domain = perpsDomainFromExchangeInfo(await client.getExchange())
    const owner = new CommandSigner({
      privateKey: generatePrivateKey(),
      clock: systemClock,
      salts: new SaltSource(systemRandom),
      domain,
    })
    const key = generatePrivateKey()
    const res = await client.createProxy(
      {
        proxy: privateKeyToAccount(key).address,
        // Past the doctor's own expiry warning (7 days): a throwaway key is not one to rotate.
        expiry: systemClock.now() + REHEARSAL_KEY_DAYS * 86_400_000,
        label: 'doctor',
      },
      { owner },
    )
    return { key, secret: res.credentials.secret }
  } finally {
    await client.close()
  }
}

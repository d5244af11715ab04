/**
 * `perpbot create-proxy`: registers a new proxy key, signed by the owner key (PERPS_OWNER_PRIVATE_KEY).
 * Prints the proxy key and the API secret once, on stdout, for the operator to store; nothing is
 * logged. Without `--live` it runs against a throwaway embedded mock (a rehearsal).
 */
import { parseArgs } from 'node:util'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { systemClock } from '../../clock.ts'
import { startMockServer } from '../../mock/server.ts'
import { createPerpsClient } from '../../perps/client/createPerpsClient.ts'
import { addressOfPrivateKey } from '../../perps/signing/privateKey.ts'
import { systemRandom } from '../../random.ts'
import { loadSettings } from '../../settings/load.ts'
import { type CliContext, UsageError } from '../context.ts'
import { ownerSignerFor } from './ownerSigner.ts'

export const CREATE_PROXY_USAGE = `usage: perpbot create-proxy [--live] [--label TEXT] [--code CODE] [--expiry-days N]
  Registers a new proxy key signed by the owner key and prints the proxy key and its API secret once.
  --live            register on the venue at PERPS_URL with PERPS_OWNER_PRIVATE_KEY (nothing else needed);
                    default: a rehearsal against a throwaway embedded mock
  --label TEXT      a label for the key (default perpbot)
  --code CODE       a referral code to apply with it
  --expiry-days N   1..365 (default 7)`

export async function createProxyCommand(ctx: CliContext): Promise<number> {
  const { values } = parseArgs({
    args: [...ctx.argv],
    options: {
      live: { type: 'boolean', default: false },
      label: { type: 'string', default: 'perpbot' },
      code: { type: 'string' },
      'expiry-days': { type: 'string', default: '7' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  })
  if (values.help) {
    ctx.stdout(CREATE_PROXY_USAGE)
    return 0
  }
  const days = Number(values['expiry-days'])
  if (!(days > 0 && days <= 365)) throw new UsageError('--expiry-days must be between 0 and 365')
  const { settings, secrets } = loadSettings({
    configDir: ctx.configDir,
    mode: values.live ? 'live' : 'dry-run',
    needs: ['perpsUrl', 'ownerKey'],
    env: {
      ...ctx.env,
      ...(values.live ? {} : { PERPS_PROXY_PRIVATE_KEY: undefined, PERPS_PROXY_SECRET: undefined }),
    },
  })
  let ownerKey = secrets.PERPS_OWNER_PRIVATE_KEY as `0x${string}` | undefined
  let baseUrl = secrets.PERPS_URL ?? settings.perps.url
  let closeMock = async (): Promise<void> => undefined
  if (!values.live) {
    const mock = await startMockServer({ port: 0 })
    baseUrl = mock.url
    closeMock = () => mock.close()
    ownerKey ??= generatePrivateKey()
    ctx.stderr('rehearsal against a throwaway embedded mock (use --live for the venue)')
  }
  if (!ownerKey) throw new UsageError('create-proxy needs PERPS_OWNER_PRIVATE_KEY (the owner wallet key)')
  if (!baseUrl) throw new UsageError('--live needs PERPS_URL')
  // Checked before anything is sent; the error names the rule, never the key.
  addressOfPrivateKey(ownerKey, 'PERPS_OWNER_PRIVATE_KEY')
  const client = createPerpsClient({ baseUrl, clock: systemClock, random: systemRandom })
  try {
    const owner = await ownerSignerFor(client, ownerKey)
    const proxyKey = generatePrivateKey()
    const proxy = privateKeyToAccount(proxyKey).address
    const res = await client.createProxy(
      {
        proxy,
        expiry: systemClock.now() + days * 86_400_000,
        label: values.label,
        ...(values.code ? { code: values.code } : {}),
      },
      { owner },
    )
    ctx.stdout('Store these now; they are not shown again. Put them in your secret store or .env:')
    ctx.stdout(`PERPS_PROXY_PRIVATE_KEY=${proxyKey}`)
    ctx.stdout(`PERPS_PROXY_SECRET=${res.credentials.secret}`)
    ctx.stderr(`proxy ${proxy} registered for owner ${owner.address}, expires in ${days} day(s)`)
    return 0
  } finally {
    await client.close()
    await closeMock()
  }
}

/**
 * The owner's account commands (issue 35): `perpbot withdraw` (shows the venue's fee and what
 * arrives, asks for confirmation, then signs with the owner key), `perpbot revoke-proxy` (revokes a
 * proxy key, owner-signed) and `perpbot account-stats` (7-day volumes). Like `create-proxy`, without
 * `--live` each runs against a throwaway embedded mock (a rehearsal); nothing secret is printed.
 */
import { createInterface } from 'node:readline/promises'
import { parseArgs } from 'node:util'
import { generatePrivateKey } from 'viem/accounts'
import { systemClock } from '../../clock.ts'
import { parseDecimal, rescale } from '../../decimal.ts'
import { startMockServer } from '../../mock/server.ts'
import { createPerpsClient, type PerpsClient } from '../../perps/client/createPerpsClient.ts'
import type { CommandSigner } from '../../perps/signing/commandSigner.ts'
import { addressOfPrivateKey } from '../../perps/signing/privateKey.ts'
import { systemRandom } from '../../random.ts'
import { loadSettings } from '../../settings/load.ts'
import { type CliContext, UsageError } from '../context.ts'
import { ownerSignerFor } from './ownerSigner.ts'

export const WITHDRAW_USAGE = `usage: perpbot withdraw --amount USD [--to ADDRESS] [--live] [--yes]
  Withdraws collateral (pUSD) from the perps account to the owner wallet (or --to), signed by the owner
  key (PERPS_OWNER_PRIVATE_KEY). Shows the venue's withdrawal fee and asks for confirmation first.
  --amount USD   the amount in pUSD (6 decimals), e.g. 250.5
  --to ADDRESS   destination (default: the owner address)
  --live         on the venue at PERPS_URL; default: a rehearsal against a throwaway embedded mock
  --yes          do not ask (required when stdin is not a terminal)`

export const REVOKE_PROXY_USAGE = `usage: perpbot revoke-proxy --proxy ADDRESS [--live] [--yes]
  Revokes a proxy key of the account, signed by the owner key (PERPS_OWNER_PRIVATE_KEY). A bot still
  signing with that key is refused from then on (rotate first: perpbot rotate-key --live).
  --proxy ADDRESS  the proxy key's address
  --live           on the venue at PERPS_URL; default: a rehearsal against a throwaway embedded mock
  --yes            do not ask (required when stdin is not a terminal)`

export const ACCOUNT_STATS_USAGE = `usage: perpbot account-stats [--live]
  The account's 7-day volumes (USD) and maker share, read with PERPS_PROXY_SECRET's header pair.
  --live   the venue at PERPS_URL; default: a rehearsal against a throwaway embedded mock`

/** Asks on the terminal; false unless the answer is yes. */
async function askYes(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr })
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim())
  } finally {
    rl.close()
  }
}

interface OwnerSession {
  client: PerpsClient
  owner: CommandSigner
  close(): Promise<void>
}

/** The venue (or a rehearsal mock) and the owner signer; the key is checked before anything is sent. */
async function ownerSession(ctx: CliContext, live: boolean, command: string): Promise<OwnerSession> {
  const { settings, secrets } = loadSettings({
    configDir: ctx.configDir,
    mode: live ? 'live' : 'dry-run',
    needs: ['perpsUrl', 'ownerKey'],
    env: {
      ...ctx.env,
      ...(live ? {} : { PERPS_PROXY_PRIVATE_KEY: undefined, PERPS_PROXY_SECRET: undefined }),
    },
  })
  let ownerKey = secrets.PERPS_OWNER_PRIVATE_KEY
  let baseUrl = secrets.PERPS_URL ?? settings.perps.url
  let closeMock = async (): Promise<void> => undefined
  let seedOwner: string | undefined
  if (!live) {
    ownerKey ??= generatePrivateKey()
    seedOwner = addressOfPrivateKey(ownerKey, 'PERPS_OWNER_PRIVATE_KEY')
    const mock = await startMockServer({ port: 0, exchange: { accounts: [{ owner: seedOwner }] } })
    baseUrl = mock.url
    closeMock = () => mock.close()
    ctx.stderr('rehearsal against a throwaway embedded mock (use --live for the venue)')
  }
  if (!ownerKey) throw new UsageError(`${command} needs PERPS_OWNER_PRIVATE_KEY (the owner wallet key)`)
  if (!baseUrl) throw new UsageError('--live needs PERPS_URL')
  addressOfPrivateKey(ownerKey, 'PERPS_OWNER_PRIVATE_KEY')
  const client = createPerpsClient({ baseUrl, clock: systemClock, random: systemRandom })
  const owner = await ownerSignerFor(client, ownerKey)
  return {
    client,
    owner,
    close: async () => {
      await client.close()
      await closeMock()
    },
  }
}

/** Whether to go on: `--yes`, or a yes on the terminal; a usage error when neither is possible. */
async function confirmed(ctx: CliContext, yes: boolean, question: string): Promise<boolean> {
  if (yes) return true
  if (ctx.confirm !== undefined) return ctx.confirm(question)
  if (!process.stdin.isTTY)
    throw new UsageError('refusing without confirmation: stdin is not a terminal (pass --yes)')
  return askYes(question)
}

export async function withdrawCommand(ctx: CliContext): Promise<number> {
  const { values } = parseArgs({
    args: [...ctx.argv],
    options: {
      amount: { type: 'string' },
      to: { type: 'string' },
      live: { type: 'boolean', default: false },
      yes: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  })
  if (values.help) {
    ctx.stdout(WITHDRAW_USAGE)
    return 0
  }
  const amount = values.amount ?? ''
  if (!/^\d+(\.\d{1,6})?$/.test(amount) || /^0+(\.0+)?$/.test(amount))
    throw new UsageError('--amount must be a positive pUSD amount with at most 6 decimals, e.g. 250.5')
  const to = values.to
  if (to !== undefined && !/^0x[0-9a-fA-F]{40}$/.test(to)) throw new UsageError('--to must be a 0x address')
  const units = rescale(parseDecimal(amount), 6)
  const s = await ownerSession(ctx, values.live, 'withdraw')
  try {
    const collateral = (await s.client.getAssets()).find((a) => a.withdrawal_fee !== undefined)
    const fee = collateral?.withdrawal_fee ?? 'unknown'
    const dest = to ?? s.owner.address
    ctx.stderr(
      `withdraw ${amount} pUSD to ${dest}; the venue's withdrawal fee: ${fee} pUSD (charged to the account on top of the amount)`,
    )
    if (!(await confirmed(ctx, values.yes, `withdraw ${amount} pUSD (fee ${fee} pUSD) to ${dest}?`))) {
      ctx.stderr('not withdrawn')
      return 1
    }
    const id = await s.client.withdraw(
      { amount: units, ...(to === undefined ? {} : { to: addressOf(to) }) },
      { owner: s.owner },
    )
    ctx.stdout(`withdrawal ${id} requested: ${amount} pUSD to ${dest}, fee ${fee} pUSD`)
    return 0
  } finally {
    await s.close()
  }
}

export async function revokeProxyCommand(ctx: CliContext): Promise<number> {
  const { values } = parseArgs({
    args: [...ctx.argv],
    options: {
      proxy: { type: 'string' },
      live: { type: 'boolean', default: false },
      yes: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  })
  if (values.help) {
    ctx.stdout(REVOKE_PROXY_USAGE)
    return 0
  }
  const proxy = values.proxy ?? ''
  if (!/^0x[0-9a-fA-F]{40}$/.test(proxy)) throw new UsageError("--proxy must be the proxy key's 0x address")
  const s = await ownerSession(ctx, values.live, 'revoke-proxy')
  try {
    if (!(await confirmed(ctx, values.yes, `revoke proxy ${proxy}?`))) {
      ctx.stderr('not revoked')
      return 1
    }
    if (!values.live)
      await s.client.createProxy(
        { proxy, expiry: systemClock.now() + 86_400_000, label: 'rehearsal' },
        { owner: s.owner },
      )
    await s.client.deleteProxy({ proxy }, { owner: s.owner })
    ctx.stdout(`proxy ${proxy} revoked`)
    return 0
  } finally {
    await s.close()
  }
}

export async function accountStatsCommand(ctx: CliContext): Promise<number> {
  const { values } = parseArgs({
    args: [...ctx.argv],
    options: { live: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' } },
    strict: true,
  })
  if (values.help) {
    ctx.stdout(ACCOUNT_STATS_USAGE)
    return 0
  }
  const { settings, secrets } = loadSettings({
    configDir: ctx.configDir,
    mode: values.live ? 'live' : 'dry-run',
    needs: values.live ? ['perpsUrl', 'proxyCredentials'] : [],
    env: ctx.env,
  })
  let closeMock = async (): Promise<void> => undefined
  let client: PerpsClient
  if (values.live) {
    const baseUrl = secrets.PERPS_URL ?? settings.perps.url
    const proxy = secrets.PERPS_PROXY_PRIVATE_KEY
    if (!baseUrl || !proxy || !secrets.PERPS_PROXY_SECRET)
      throw new UsageError('--live needs PERPS_URL and the proxy key pair')
    client = createPerpsClient({
      baseUrl,
      clock: systemClock,
      random: systemRandom,
      credentials: {
        proxy: addressOfPrivateKey(proxy, 'PERPS_PROXY_PRIVATE_KEY'),
        secret: secrets.PERPS_PROXY_SECRET,
      },
    })
  } else {
    const owner = generatePrivateKey()
    const ownerAddress = addressOfPrivateKey(owner, 'owner')
    const proxyKey = generatePrivateKey()
    const proxy = addressOfPrivateKey(proxyKey, 'proxy')
    const mock = await startMockServer({
      port: 0,
      exchange: {
        accounts: [
          {
            owner: ownerAddress,
            proxies: [{ proxy, secret: 'rehearsal-secret', expiry: systemClock.now() + 86_400_000 }],
          },
        ],
      },
    })
    closeMock = () => mock.close()
    ctx.stderr('rehearsal against a throwaway embedded mock (use --live for the venue)')
    client = createPerpsClient({
      baseUrl: mock.url,
      clock: systemClock,
      random: systemRandom,
      credentials: { proxy, secret: 'rehearsal-secret' },
    })
  }
  try {
    const st = await client.getAccountStats()
    ctx.stdout(
      `7-day volume: ${st.volume_7d} USD (taker ${st.taker_volume_7d} USD, maker ${st.maker_volume_7d} USD)`,
    )
    ctx.stdout(`7-day maker share: ${st.account_maker_share_7d} (fraction of volume)`)
    if (st.entity_maker_share_7d !== undefined)
      ctx.stdout(
        `entity ${st.entity_name ?? st.entity_id ?? ''} 7-day maker share: ${st.entity_maker_share_7d}`,
      )
    return 0
  } finally {
    await client.close()
    await closeMock()
  }
}

function addressOf(s: string): `0x${string}` {
  if (!/^0x[0-9a-fA-F]{40}$/.test(s)) throw new UsageError('expected a 0x address')
  return `0x${s.slice(2)}`
}

/**
 * `perpbot rotate-key --live`: key rotation without downtime. Registers a new proxy key with the owner
 * key, hands it to the running bot through its ops server (`POST /control/rotate-key`, with
 * PERPBOT_OPS_TOKEN, or the session's CSRF token on loopback), and revokes the old key only once the bot answers that it signs with the new
 * one and the old one has drained. If the bot refuses the new key, the new key is revoked again and
 * the bot trades on with the old one (exit 1). Prints the new key pair once, for the secret store.
 */
import { parseArgs } from 'node:util'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { systemClock } from '../../clock.ts'
import { describeError } from '../../errors.ts'
import { createHttpTransport } from '../../http/transport.ts'
import { ROTATE_KEY_PATH } from '../../ops/rotateKeyEndpoint.ts'
import { createPerpsClient } from '../../perps/client/createPerpsClient.ts'
import { addressOfPrivateKey } from '../../perps/signing/privateKey.ts'
import { systemRandom } from '../../random.ts'
import { loadSettings } from '../../settings/load.ts'
import { type CliContext, UsageError } from '../context.ts'
import { postToBot } from '../control.ts'
import { ownerSignerFor } from './ownerSigner.ts'

export const ROTATE_KEY_USAGE = `usage: perpbot rotate-key --live [--ops-url URL] [--expiry-days N] [--label TEXT]
  Rotates the running bot's proxy key without stopping it: registers a new proxy with the owner key
  (PERPS_OWNER_PRIVATE_KEY), hands it to the bot through its ops server, revokes the old key once the bot
  signs with the new one, and prints the new key pair once (store it: the next start needs it).
  --live           required: this acts on the venue at PERPS_URL and the running bot
  --ops-url URL    the bot's ops server (default http://<ops.host>:<ops.port>); PERPBOT_OPS_TOKEN is sent
  --expiry-days N  1..365 (default 7)
  --label TEXT     the new key's label (default perpbot)`

export async function rotateKeyCommand(ctx: CliContext): Promise<number> {
  const { values } = parseArgs({
    args: [...ctx.argv],
    options: {
      live: { type: 'boolean', default: false },
      'ops-url': { type: 'string' },
      'expiry-days': { type: 'string', default: '7' },
      label: { type: 'string', default: 'perpbot' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  })
  if (values.help) {
    ctx.stdout(ROTATE_KEY_USAGE)
    return 0
  }
  if (!values.live) throw new UsageError('rotate-key acts on the running bot and the venue: pass --live')
  const days = Number(values['expiry-days'])
  if (!(days > 0 && days <= 365)) throw new UsageError('--expiry-days must be between 0 and 365')
  const { settings, secrets } = loadSettings({
    configDir: ctx.configDir,
    mode: 'live',
    needs: ['perpsUrl', 'ownerKey'],
    env: ctx.env,
  })
  const ownerKey = secrets.PERPS_OWNER_PRIVATE_KEY
  const baseUrl = secrets.PERPS_URL ?? settings.perps.url
  if (!ownerKey) throw new UsageError('rotate-key needs PERPS_OWNER_PRIVATE_KEY (the owner wallet key)')
  if (!baseUrl) throw new UsageError('rotate-key needs PERPS_URL')
  addressOfPrivateKey(ownerKey, 'PERPS_OWNER_PRIVATE_KEY')
  const opsUrl = values['ops-url'] ?? `http://${settings.ops.host}:${settings.ops.port}`
  if (!/^https?:\/\//.test(opsUrl)) throw new UsageError('--ops-url must be an http(s) URL')
  const token = ctx.env.PERPBOT_OPS_TOKEN
  const client = createPerpsClient({ baseUrl, clock: systemClock, random: systemRandom })
  try {
    const owner = await ownerSignerFor(client, ownerKey)
    const nextKey = generatePrivateKey()
    const next = privateKeyToAccount(nextKey).address
    const created = await client.createProxy(
      { proxy: next, expiry: systemClock.now() + days * 86_400_000, label: values.label },
      { owner },
    )
    ctx.stderr(`new proxy ${next} registered; handing it to the bot at ${opsUrl}`)
    // The ops token when set, else the session's CSRF token on loopback: as every control command.
    const ops = createHttpTransport({ baseUrl: opsUrl, connectTimeoutMs: 2_000, headersTimeoutMs: 60_000 })
    let res: { status: number; text: string } | undefined
    let failure: unknown
    try {
      res = await postToBot({
        transport: ops,
        path: ROTATE_KEY_PATH,
        body: { privateKey: nextKey, secret: created.credentials.secret },
        token,
        url: opsUrl,
      })
    } catch (e) {
      failure = e
    } finally {
      await ops.close()
    }
    const answer = replyOf(res?.text)
    if (res === undefined || res.status !== 200 || typeof answer.previous !== 'string') {
      const why =
        res === undefined
          ? describeError(failure)
          : `${res.status} ${String(answer.reason ?? answer.error ?? '')}`
      ctx.stderr(`the bot did not take the new key (${why}); revoking the new key, the bot keeps the old one`)
      await client.deleteProxy({ proxy: next }, { owner }).catch(() => undefined)
      return 1
    }
    await client.deleteProxy({ proxy: answer.previous }, { owner })
    ctx.stdout(
      'The bot now signs with this key; store it now (the next start needs it), it is not shown again:',
    )
    ctx.stdout(`PERPS_PROXY_PRIVATE_KEY=${nextKey}`)
    ctx.stdout(`PERPS_PROXY_SECRET=${created.credentials.secret}`)
    ctx.stderr(`old proxy ${answer.previous} revoked; new proxy ${next} expires in ${days} day(s)`)
    return 0
  } finally {
    await client.close()
  }
}

/** The bot's JSON answer as fields (empty when it is not an object). */
function replyOf(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {}
  try {
    const parsed: unknown = JSON.parse(text)
    return parsed !== null && typeof parsed === 'object' ? { ...parsed } : {}
  } catch {
    return {}
  }
}

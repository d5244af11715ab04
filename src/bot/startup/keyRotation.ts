/**
 * Key rotation without downtime (issue 35): the running bot takes a new proxy key (created by
 * `perpbot rotate-key --live` with the owner key), switches its one `RotatingProxyKey` to it, proves
 * the new key with a signed self-test (a cancel of an order that cannot exist: "order not found"
 * means the signature verified), and only then answers that the old key may be revoked — after a
 * drain as long as a command may stay in flight, so nothing signed with the old key is still on its
 * way when it is revoked. A self-test the venue refuses switches back: the bot keeps trading on the
 * old key and the rotation fails with the venue's reason. One rotation at a time.
 */
import type { Clock } from '../../clock.ts'
import { BotError, describeError, InputValidationError } from '../../errors.ts'
import type { Logger } from '../../logging/logger.ts'
import { ProxyCredentials } from '../../perps/client/context.ts'
import type { PerpsClient } from '../../perps/client/createPerpsClient.ts'
import type { RotatingProxyKey } from '../../perps/client/rotatingKey.ts'
import { isOrderGoneCode } from '../../perps/schemas/orders.ts'
import { CommandSigner } from '../../perps/signing/commandSigner.ts'
import type { PerpsDomain } from '../../perps/signing/domain.ts'
import type { SaltSource } from '../../perps/signing/salt.ts'

/** An order id no order has (u32 max): its cancel can only answer "not found" once the signature verifies. */
export const SELF_TEST_ORDER_ID = 4_294_967_295

export class KeyRotationError extends BotError {
  override name = 'KeyRotationError' as const
}

export interface RotateKeyRequest {
  /** The new proxy's private key (32-byte hex). */
  privateKey: string
  /** Its API secret. */
  secret: string
}

export interface RotateKeyResult {
  previous: string
  current: string
  /** Base-clock ms the old key was kept after the switch before this answer. */
  drainedMs: number
}

export interface KeyRotator {
  /** @throws {@link KeyRotationError} the new key was refused (the old one is kept), or a rotation is running. */
  rotate(next: RotateKeyRequest): Promise<RotateKeyResult>
  state(): { switches: number; rotating: boolean; current: string }
}

export function createKeyRotation(o: {
  key: RotatingProxyKey
  perps: Pick<PerpsClient, 'cancelOrders'>
  clock: Clock
  domain: PerpsDomain
  salts: SaltSource
  logger: Pick<Logger, 'info' | 'warn'>
  /** Where the process keeps secrets to redact from logs (the new key and secret join it). */
  secretBag?: { add(secret: string): void } | undefined
  /** How long the old key stays usable after the switch (a command's longest time in flight). Default 10 s. */
  drainMs?: number | undefined
}): KeyRotator {
  const drainMs = o.drainMs ?? 10_000
  let rotating = false
  const wait = (ms: number) => new Promise<void>((resolve) => o.clock.setTimeout(resolve, ms))

  const selfTest = async (): Promise<string | undefined> => {
    try {
      const [r] = await o.perps.cancelOrders([SELF_TEST_ORDER_ID], { priority: 'risk' })
      if (r?.status === 'err' && isOrderGoneCode(r.error)) return undefined
      return `unexpected self-test answer ${JSON.stringify(r)}`
    } catch (e) {
      return describeError(e)
    }
  }

  return {
    async rotate(next) {
      if (rotating) throw new KeyRotationError('a key rotation is already running')
      rotating = true
      try {
        let signer: CommandSigner
        let credentials: ProxyCredentials
        try {
          signer = new CommandSigner({
            privateKey: next.privateKey,
            clock: o.clock,
            salts: o.salts,
            domain: o.domain,
          })
          credentials = new ProxyCredentials(signer.address, next.secret)
        } catch (e) {
          throw new InputValidationError('the new proxy key or secret is malformed', { cause: e })
        }
        o.secretBag?.add(next.privateKey)
        o.secretBag?.add(next.secret)
        const previous = o.key.switchTo({ signer, credentials })
        const failed = await selfTest()
        if (failed !== undefined) {
          o.key.switchTo(previous)
          o.logger.warn(
            { proxy: signer.address, reason: failed },
            'new proxy key refused; trading on with the old key',
          )
          throw new KeyRotationError(`the venue refused the new proxy key: ${failed}`)
        }
        o.logger.info(
          { previous: previous.signer.address, current: signer.address, drainMs },
          'proxy key switched; draining commands signed with the old key',
        )
        const at = o.clock.now()
        await wait(drainMs)
        return { previous: previous.signer.address, current: signer.address, drainedMs: o.clock.now() - at }
      } finally {
        rotating = false
      }
    },
    state: () => ({ switches: o.key.switches, rotating, current: o.key.address }),
  }
}

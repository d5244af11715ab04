/**
 * The owner key's signer for the venue a perps client reads: the exchange's EIP-712 domain from its
 * exchange info, the system clock and salts. One place for `create-proxy`, `rotate-key` and the
 * owner's account commands.
 */
import { systemClock } from '../../clock.ts'
import type { PerpsClient } from '../../perps/client/createPerpsClient.ts'
import { CommandSigner } from '../../perps/signing/commandSigner.ts'
import { perpsDomainFromExchangeInfo } from '../../perps/signing/domain.ts'
import { SaltSource } from '../../perps/signing/salt.ts'
import { systemRandom } from '../../random.ts'

export async function ownerSignerFor(
  client: Pick<PerpsClient, 'getExchange'>,
  ownerKey: string,
): Promise<CommandSigner> {
  const domain = perpsDomainFromExchangeInfo(await client.getExchange())
  return new CommandSigner({
    privateKey: ownerKey,
    clock: systemClock,
    salts: new SaltSource(systemRandom),
    domain,
  })
}

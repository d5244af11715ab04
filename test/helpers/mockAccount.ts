/** Registers a fresh proxy on a mock over loopback, as an operator's create-proxy would. */
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { systemClock } from '../../src/clock.ts'
import type { ProxyCredentials } from '../../src/perps/client/context.ts'
import { createPerpsClient } from '../../src/perps/client/createPerpsClient.ts'
import { CommandSigner } from '../../src/perps/signing/commandSigner.ts'
import { type PerpsDomain, perpsDomainFromExchangeInfo } from '../../src/perps/signing/domain.ts'
import { SaltSource } from '../../src/perps/signing/salt.ts'
import { seededRandom } from '../../src/random.ts'

export interface MockAccount {
  key: `0x${string}`
  credentials: ProxyCredentials
  domain: PerpsDomain
  /** The owner wallet's address (the mock keys the account's orders by it). */
  owner: string
  /** The owner wallet's key (to register another proxy on the same account). */
  ownerKey: `0x${string}`
}

export async function registerMockProxy(
  url: string,
  label = 'test',
  ownerKey: `0x${string}` = generatePrivateKey(),
): Promise<MockAccount> {
  const pub = createPerpsClient({ baseUrl: url, clock: systemClock, random: seededRandom(1) })
  try {
    const domain = perpsDomainFromExchangeInfo(await pub.getExchange())
    const owner = new CommandSigner({
      privateKey: ownerKey,
      clock: systemClock,
      salts: new SaltSource(seededRandom(ownerKey.length + label.length)),
      domain,
    })
    const key = generatePrivateKey()
    const { credentials } = await pub.createProxy(
      { proxy: privateKeyToAccount(key).address, expiry: Date.now() + 30 * 86_400_000, label },
      { owner },
    )
    return { key, credentials, domain, owner: owner.address, ownerKey }
  } finally {
    await pub.close()
  }
}

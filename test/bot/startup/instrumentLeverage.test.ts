/** Leverage and margin mode from the config, applied at start against the mock over loopback. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { applyInstrumentLeverage } from '../../../src/bot/startup/instrumentLeverage.ts'
import { systemClock } from '../../../src/clock.ts'
import { ConfigError } from '../../../src/errors.ts'
import { type RunningMock, startMockServer } from '../../../src/mock/server.ts'
import { createPerpsClient, type PerpsClient } from '../../../src/perps/client/createPerpsClient.ts'
import { leverageChanges } from '../../../src/perps/leverageWanted.ts'
import { CommandSigner } from '../../../src/perps/signing/commandSigner.ts'
import { SaltSource } from '../../../src/perps/signing/salt.ts'
import { seededRandom } from '../../../src/random.ts'
import { InstrumentSettings } from '../../../src/settings/schema.ts'
import { registerMockProxy } from '../../helpers/mockAccount.ts'

describe('leverage changes (pure)', () => {
  const wanted = [{ symbol: 'A', instrumentId: 1, leverage: 3, marginMode: 'isolated' as const }]
  it('changes only what differs, keeping what the config does not name', () => {
    expect(leverageChanges(wanted, [{ instrument_id: 1, leverage: 3, cross: false }])).toEqual([])
    expect(leverageChanges(wanted, [{ instrument_id: 1, leverage: 5, cross: false }])).toMatchObject([
      { leverage: 3, cross: false, have: { leverage: 5, cross: false } },
    ])
    expect(
      leverageChanges(
        [{ symbol: 'A', instrumentId: 1, marginMode: 'isolated' }],
        [{ instrument_id: 1, leverage: 7, cross: true }],
      ),
    ).toMatchObject([{ leverage: 7, cross: false }])
    expect(leverageChanges([{ symbol: 'A', instrumentId: 1 }], [])).toEqual([])
  })
})

let mock: RunningMock
let perps: PerpsClient
const quiet = { info: () => {} }

beforeAll(async () => {
  mock = await startMockServer({ port: 0, seed: 6, clock: 'real' })
  const { key, credentials, domain } = await registerMockProxy(mock.url, 'leverage')
  perps = createPerpsClient({
    baseUrl: mock.url,
    clock: systemClock,
    random: seededRandom(3),
    credentials,
    signer: new CommandSigner({
      privateKey: key,
      clock: systemClock,
      salts: new SaltSource(seededRandom(4)),
      domain,
    }),
  })
})
afterAll(async () => {
  await perps.close()
  await mock.close()
})

describe('applied at start', () => {
  const instrument = (extra: object) =>
    InstrumentSettings.parse({ symbol: 'BTC-USDC', strategy: 'noop', ...extra })

  it('sets the configured leverage and margin mode once; a second start changes nothing', async () => {
    const listed = new Map((await perps.getInstruments()).map((i) => [i.symbol, i]))
    const btc = listed.get('BTC-USDC')
    if (btc === undefined) throw new Error('BTC-USDC not listed')
    const settings = { instruments: [instrument({ leverage: 3, marginMode: 'isolated' })] }
    expect(await applyInstrumentLeverage({ perps, settings, listed, logger: quiet })).toBe(1)
    const cfg = await perps.getAccountConfig({ instrumentId: btc.instrument_id })
    expect(cfg).toContainEqual(
      expect.objectContaining({ instrument_id: btc.instrument_id, leverage: 3, cross: false }),
    )
    expect(await applyInstrumentLeverage({ perps, settings, listed, logger: quiet })).toBe(0)
  })

  it('a leverage the venue refuses stops the start with the config key named', async () => {
    const listed = new Map((await perps.getInstruments()).map((i) => [i.symbol, i]))
    const settings = { instruments: [instrument({ leverage: 999 })] }
    const err = await applyInstrumentLeverage({ perps, settings, listed, logger: quiet }).catch(
      (e: unknown) => e,
    )
    if (!(err instanceof ConfigError)) throw new Error(`expected a ConfigError, got ${String(err)}`)
    expect(err.issues.join('\n')).toContain('instruments[0].leverage')
  })
})

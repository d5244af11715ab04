/**
 * Start step: the account's leverage and margin mode per instrument brought to the config
 * (`instruments[].leverage`, `marginMode`) before the first quote. Reads `GET /v1/account/config`,
 * sends `updateLeverage` for each instrument that differs, and stops the start with a ConfigError
 * naming the config key when the venue refuses a value (a 422 `invalid_leverage`): a bot must not
 * quote at a leverage the operator did not choose.
 */
import { ConfigError, describeError, RequestRejectedError } from '../../errors.ts'
import type { Logger } from '../../logging/logger.ts'
import type { PerpsClient } from '../../perps/client/createPerpsClient.ts'
import { describeChange, type LeverageWanted, leverageChanges } from '../../perps/leverageWanted.ts'
import type { Settings } from '../../settings/schema.ts'

/** The config's wishes for the listed instruments (those it names neither for are left out). */
export function leverageWanted(
  settings: Pick<Settings, 'instruments'>,
  listed: ReadonlyMap<string, { instrument_id: number }>,
): (LeverageWanted & { index: number })[] {
  return settings.instruments.flatMap((i, index) => {
    const id = listed.get(i.symbol)?.instrument_id
    if (!i.enabled || id === undefined || (i.leverage === undefined && i.marginMode === undefined)) return []
    return [{ symbol: i.symbol, instrumentId: id, leverage: i.leverage, marginMode: i.marginMode, index }]
  })
}

/** Applies the configured leverage; returns how many instruments were changed. */
export async function applyInstrumentLeverage(o: {
  perps: Pick<PerpsClient, 'getAccountConfig' | 'updateLeverage'>
  settings: Pick<Settings, 'instruments'>
  listed: ReadonlyMap<string, { instrument_id: number }>
  logger: Pick<Logger, 'info'>
}): Promise<number> {
  const wanted = leverageWanted(o.settings, o.listed)
  if (wanted.length === 0) return 0
  const changes = leverageChanges(wanted, await o.perps.getAccountConfig())
  for (const c of changes) {
    try {
      await o.perps.updateLeverage(
        { instrumentId: c.instrumentId, leverage: c.leverage, cross: c.cross },
        { priority: 'risk' },
      )
    } catch (e) {
      if (!(e instanceof RequestRejectedError) || e.status !== 422) throw e
      const index = wanted.find((w) => w.instrumentId === c.instrumentId)?.index ?? 0
      throw new ConfigError(`the venue refused the leverage of ${c.symbol}`, [
        `instruments[${index}].leverage / marginMode: ${describeChange(c)} refused (${describeError(e)})`,
      ])
    }
    o.logger.info(
      { instrument: c.symbol, leverage: c.leverage, cross: c.cross },
      `leverage set: ${describeChange(c)}`,
    )
  }
  return changes.length
}

/**
 * Admission: an instrument a reload adds starts trading as the instruments at start did. The venue's
 * instruments are read again (a symbol it does not list is refused), the account's open-order cap
 * must leave room for at least one of its orders (quoting/orderSlots.ts: the running ladders keep
 * their shares), its configured leverage and margin mode are applied (instrumentLeverage.ts), and
 * only then is its actor spawned (actors/instrumentActors.ts `add`), whose `joined` signal brings the
 * inputs, holds, protections and journal to it. A refused instrument changes nothing; each one gets
 * one line saying what happened.
 */
import { ConfigError, describeError } from '../../errors.ts'
import type { Logger } from '../../logging/logger.ts'
import type { PerpsClient } from '../../perps/client/createPerpsClient.ts'
import type { Instrument } from '../../perps/schemas/info.ts'
import type { Settings } from '../../settings/schema.ts'
import type { AddedInstrument, AddOutcome, ResolvedInstrumentConfig } from '../actors/instrumentActors.ts'
import { type RunningSlots, slotsForAdded } from '../quoting/orderSlots.ts'
import { applyInstrumentLeverage } from './instrumentLeverage.ts'
import { quoteAssetRefusal } from './quoteAssets.ts'

/** One added instrument's outcome: trading now, or refused (nothing changed) with the reason. */
export interface AdmissionLine {
  symbol: string
  admitted: boolean
  line: string
}

export interface InstrumentAdmission {
  /** Starts trading the instruments a reload added, in order; each admitted or refused with a line. */
  admit(settings: Settings, added: readonly ResolvedInstrumentConfig[]): Promise<AdmissionLine[]>
}

export function createInstrumentAdmission(o: {
  perps: Pick<PerpsClient, 'getInstruments' | 'getAccountConfig' | 'updateLeverage'>
  actors: {
    readonly instruments: readonly { id: number; symbol: string }[]
    add(added: AddedInstrument): AddOutcome
    slotDemands(): readonly RunningSlots[]
  }
  logger: Logger
}): InstrumentAdmission {
  const log = o.logger.child({ component: 'admission' })
  const refuse = (symbol: string, why: string): AdmissionLine => ({
    symbol,
    admitted: false,
    line: `${symbol}: not added: ${why}; nothing changed`,
  })
  const admitOne = async (
    settings: Settings,
    r: ResolvedInstrumentConfig,
    listed: ReadonlyMap<string, Instrument>,
  ): Promise<AdmissionLine> => {
    const inst = listed.get(r.symbol)
    if (inst === undefined) {
      const known = [...listed.keys()].slice(0, 20).join(', ')
      return refuse(
        r.symbol,
        `the venue does not list it (it lists ${known}${listed.size > 20 ? ', …' : ''})`,
      )
    }
    const traded = o.actors.instruments.find((i) => i.id === inst.instrument_id || i.symbol === r.symbol)
    if (traded !== undefined)
      return { symbol: r.symbol, admitted: false, line: `${r.symbol}: already traded` }
    const running = [...listed.values()].filter((l) =>
      o.actors.instruments.some((i) => i.id === l.instrument_id),
    )
    const mixed = quoteAssetRefusal(inst, running)
    if (mixed !== undefined) return refuse(r.symbol, mixed)
    const cap = settings.quoting.accountOpenOrderCap
    const slots = slotsForAdded(
      o.actors.slotDemands(),
      {
        id: inst.instrument_id,
        symbol: inst.symbol,
        wants: r.strategy.maxOrders,
        venueMax: inst.max_order_count,
      },
      cap,
    )
    if (!slots.ok) return refuse(r.symbol, slots.reason)
    try {
      await applyInstrumentLeverage({
        perps: o.perps,
        // Every entry, so a refusal names the file's index; only this instrument is listed.
        settings,
        listed: new Map([[r.symbol, inst]]),
        logger: log,
      })
    } catch (e) {
      const why = e instanceof ConfigError ? e.details.join('; ') : describeError(e)
      return refuse(r.symbol, `its leverage could not be set (${why})`)
    }
    const share = slots.trimmed ? slots.slots : undefined
    const outcome = o.actors.add({ listed: inst, strategy: r.strategy, settings, share })
    if (outcome === 'already traded')
      return { symbol: r.symbol, admitted: false, line: `${r.symbol}: already traded` }
    if (outcome === 'stopping') return refuse(r.symbol, 'the bot is stopping')
    const trimmed =
      share === undefined
        ? ''
        : `; its ladder trimmed to ${share} order(s): the running ladders rest up to ${slots.used} of the account's ${cap} (quoting.accountOpenOrderCap)`
    return {
      symbol: r.symbol,
      admitted: true,
      line: `${r.symbol}: added: ${r.strategy.name} with the file's parameters, quoting once its inputs arrive${trimmed}`,
    }
  }

  return {
    async admit(settings, added) {
      if (added.length === 0) return []
      let listed: Map<string, Instrument>
      try {
        // Read now, not taken from the start: the venue may list instruments it did not then.
        listed = new Map((await o.perps.getInstruments()).map((i) => [i.symbol, i]))
      } catch (e) {
        return added.map((r) =>
          refuse(r.symbol, `the venue's instruments could not be read (${describeError(e)})`),
        )
      }
      const lines: AdmissionLine[] = []
      for (const r of added) lines.push(await admitOne(settings, r, listed))
      return lines
    },
  }
}

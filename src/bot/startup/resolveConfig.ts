/**
 * The first start-up step, with no network: load the settings and resolve every instrument's strategy
 * and params, so a bad configuration is refused (every problem with its path) before anything is sent.
 */
import { resolve as resolvePath } from 'node:path'
import { ConfigError, describeError } from '../../errors.ts'
import { fieldOf } from '../../guards.ts'
import {
  type LoadedSettings,
  type LoadSettingsOptions,
  loadSettings,
  mergeSettingsSources,
} from '../../settings/load.ts'
import { Settings } from '../../settings/schema.ts'
import { DEFAULT_STRATEGIES_DIR, loadStrategies } from '../../strategy/registry.ts'
import type { ResolvedInstrumentConfig } from '../actors/instrumentActors.ts'

export type { ResolvedInstrumentConfig }

/**
 * Loads strategies and resolves each enabled instrument's params. Collects every problem, then throws
 * one `ConfigError` naming each instrument's path.
 */
export async function resolveStrategies(settings: Settings): Promise<ResolvedInstrumentConfig[]> {
  const { resolved, issues } = await checkStrategies(
    settings.instruments,
    settings.strategiesDir,
    settings.strategyImportTimeoutMs,
  )
  if (resolved.length === 0 && issues.length === 0) issues.push('instruments: every instrument is disabled')
  if (issues.length > 0)
    throw new ConfigError(
      `invalid configuration (${issues.length} problem${issues.length === 1 ? '' : 's'})`,
      issues,
    )
  return resolved
}

interface RawInstrument {
  symbol?: unknown
  strategy?: unknown
  params?: unknown
  enabled?: unknown
}

/** An unvalidated instrument entry's fields (anything that is not an object has none). */
function rawInstrument(v: unknown): RawInstrument {
  return {
    symbol: fieldOf(v, 'symbol'),
    strategy: fieldOf(v, 'strategy'),
    params: fieldOf(v, 'params'),
    enabled: fieldOf(v, 'enabled'),
  }
}

/** Resolves what can be resolved and lists the rest; works on unvalidated instrument entries too. */
async function checkStrategies(
  instruments: readonly RawInstrument[],
  strategiesDir: string | undefined,
  importTimeoutMs: number | undefined,
): Promise<{ resolved: ResolvedInstrumentConfig[]; issues: string[] }> {
  const issues: string[] = []
  const resolved: ResolvedInstrumentConfig[] = []
  let registry: Awaited<ReturnType<typeof loadStrategies>>
  try {
    // The shipped folder (its listing, read at run time) plus the configured folder's drop-ins.
    registry = await loadStrategies({
      shippedDirectory: DEFAULT_STRATEGIES_DIR,
      // Absent: the shipped folder is the plug-in folder too (read once), wherever the bot runs from.
      directory: strategiesDir === undefined ? DEFAULT_STRATEGIES_DIR : resolvePath(strategiesDir),
      importTimeoutMs,
    })
  } catch (e) {
    return { resolved, issues: [`strategiesDir: ${describeError(e)}`] }
  }
  instruments.forEach((inst, i) => {
    if (inst.enabled === false || typeof inst.strategy !== 'string' || typeof inst.symbol !== 'string') return
    try {
      resolved.push({ symbol: inst.symbol, strategy: registry.resolve(inst.strategy, inst.params ?? {}) })
    } catch (e) {
      if (e instanceof ConfigError) {
        issues.push(`instruments.${i}.strategy: ${e.shortMessage}`)
        for (const d of e.issues)
          issues.push(`instruments.${i}.${d.startsWith('params') ? d : `strategy: ${d}`}`)
      } else issues.push(`instruments.${i}.strategy: ${describeError(e)}`)
    }
  })
  return { resolved, issues }
}

/**
 * Loads the configuration and resolves every strategy, reporting structural and strategy problems
 * together in one `ConfigError` (strategies are checked even when the rest of the file is invalid).
 */
export async function loadAndResolve(
  options: LoadSettingsOptions,
): Promise<LoadedSettings & { strategies: ResolvedInstrumentConfig[] }> {
  let loaded: LoadedSettings | undefined
  let issues: string[] = []
  try {
    loaded = loadSettings(options)
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e
    issues = [...e.issues]
  }
  if (loaded) return { ...loaded, strategies: await resolveStrategies(loaded.settings) }
  const { merged } = mergeSettingsSources(options)
  const raw = Array.isArray(merged.instruments) ? merged.instruments.map(rawInstrument) : []
  const dir = typeof merged.strategiesDir === 'string' ? merged.strategiesDir : undefined
  // The file is invalid somewhere: a timeout that is itself invalid is left to its own message.
  const timeout = Settings.shape.strategyImportTimeoutMs.safeParse(merged.strategyImportTimeoutMs)
  const extra = await checkStrategies(raw, dir, timeout.success ? timeout.data : undefined)
  const all = [...issues, ...extra.issues]
  throw new ConfigError(`invalid configuration (${all.length} problem${all.length === 1 ? '' : 's'})`, all)
}

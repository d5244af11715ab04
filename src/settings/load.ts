/**
 * Loads the effective configuration: `config/default.json`, then an overlay, then CLI overrides,
 * validated as one object; secrets from the environment. Every problem is collected and reported at
 * once with its path (`ConfigError.issues`), before anything is sent anywhere.
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { ConfigError } from '../errors.ts'
import { errorMessage } from '../guards.ts'
import { formatZodIssues } from '../http/callJson.ts'
import { isLoopbackHost, OPS_TOKEN_ENV } from '../ops/opsAuth.ts'
import { pollingAllowancePerMinute, pollingWeightPerMinute } from './limits.ts'
import { protectionIssues } from './protectionSettings.ts'
import { Secrets, type Secrets as SecretsT, Settings, type Settings as SettingsT } from './schema.ts'

export interface LoadSettingsOptions {
  /** Directory holding default.json and the overlays. */
  configDir: string
  /** 'dry-run' or 'live' picks the overlay `config/<mode>.json` when no explicit file is given. */
  mode?: 'dry-run' | 'live' | undefined
  /** An explicit overlay file (replaces the mode overlay). */
  file?: string | undefined
  /** Dotted-path overrides from the command line, e.g. `{ 'mock.scenario': 'liquidation' }`. */
  overrides?: Readonly<Record<string, unknown>> | undefined
  env: Readonly<Record<string, string | undefined>>
  /**
   * What the command will use in live mode, checked up front (each command asks for exactly what it
   * uses). Default: everything `perpbot run --live` needs.
   */
  needs?: readonly LiveNeed[] | undefined
}

/** A live-mode requirement: a venue address or a secret from the environment. */
export type LiveNeed = 'perpsUrl' | 'catalogueUrl' | 'proxyCredentials' | 'ownerKey'
export const RUN_NEEDS: readonly LiveNeed[] = ['perpsUrl', 'catalogueUrl', 'proxyCredentials']

export interface LoadedSettings {
  settings: SettingsT
  secrets: SecretsT
  /** Files merged, in order. */
  sources: string[]
}

/** The merged (unvalidated) configuration object, the files it came from, and file-level problems. */
export interface MergedSources {
  merged: Record<string, unknown>
  sources: string[]
  issues: string[]
}

/** Reads default.json, the overlay and the overrides, and merges them without validating. */
export function mergeSettingsSources(options: LoadSettingsOptions): MergedSources {
  const issues: string[] = []
  const sources: string[] = []
  const read = (path: string, required: boolean): Record<string, unknown> => {
    let text: string
    try {
      text = readFileSync(path, 'utf8')
    } catch {
      if (required) issues.push(`${path}: cannot read file`)
      return {}
    }
    try {
      const value: unknown = JSON.parse(text)
      if (!isPlainObject(value)) {
        issues.push(`${path}: must contain a JSON object`)
        return {}
      }
      sources.push(path)
      return value
    } catch (e) {
      issues.push(`${path}: invalid JSON (${errorMessage(e)})`)
      return {}
    }
  }
  const base = read(resolve(options.configDir, 'default.json'), true)
  const overlayPath = options.file
    ? resolve(options.file)
    : options.mode
      ? resolve(options.configDir, `${options.mode}.json`)
      : undefined
  const overlay = overlayPath ? read(overlayPath, options.file !== undefined) : {}
  let merged = deepMerge(base, overlay)
  if (options.mode) merged = deepMerge(merged, { mode: options.mode })
  for (const [path, value] of Object.entries(options.overrides ?? {})) merged = setPath(merged, path, value)
  return { merged, sources, issues }
}

export function loadSettings(options: LoadSettingsOptions): LoadedSettings {
  const { merged, sources, issues } = mergeSettingsSources(options)
  const parsed = Settings.safeParse(merged)
  if (!parsed.success) issues.push(...formatZodIssues(parsed.error))
  const envParsed = Secrets.safeParse(pickEnv(options.env))
  if (!envParsed.success) issues.push(...formatZodIssues(envParsed.error).map((i) => `env ${i}`))
  if (parsed.success && envParsed.success)
    issues.push(...crossCheck(parsed.data, envParsed.data, options.needs ?? RUN_NEEDS))
  if (issues.length > 0 || !parsed.success || !envParsed.success) {
    throw new ConfigError(
      `invalid configuration (${issues.length} problem${issues.length === 1 ? '' : 's'})`,
      issues,
    )
  }
  return { settings: parsed.data, secrets: envParsed.data, sources }
}

function crossCheck(s: SettingsT, env: SecretsT, needs: readonly LiveNeed[]): string[] {
  const out: string[] = []
  const r = s.risk
  if (
    !(r.widenAtMarginRatio < r.reduceOnlyAtMarginRatio && r.reduceOnlyAtMarginRatio < r.haltAtMarginRatio)
  ) {
    out.push('risk: widenAtMarginRatio < reduceOnlyAtMarginRatio < haltAtMarginRatio must hold')
  }
  if (!(r.reduceOnlyAtLiquidationDistance < r.widenAtLiquidationDistance)) {
    out.push('risk: reduceOnlyAtLiquidationDistance must be below widenAtLiquidationDistance')
  }
  if (!(s.monitor.marginWarningRatio < s.monitor.marginCriticalRatio)) {
    out.push('monitor: marginWarningRatio must be below marginCriticalRatio')
  }
  const polled = pollingWeightPerMinute(s.polling)
  const allowance = pollingAllowancePerMinute(s.limiter)
  if (polled > allowance) {
    out.push(
      `polling: these intervals need ${Math.ceil(polled)} request weight/min besides the index, more than the ${Math.floor(allowance)} the limiter settings leave for them; lengthen the intervals`,
    )
  }
  if (!isLoopbackHost(s.ops.host) && !env.PERPBOT_OPS_TOKEN) {
    out.push(
      `ops.host: ${s.ops.host} is reachable beyond this host; set env ${OPS_TOKEN_ENV} (required on every endpoint but /livez) or bind 127.0.0.1`,
    )
  }
  const symbols = new Set<string>()
  s.instruments.forEach((inst, i) => {
    if (symbols.has(inst.symbol)) out.push(`instruments.${i}.symbol: duplicate symbol ${inst.symbol}`)
    symbols.add(inst.symbol)
  })
  out.push(...protectionIssues(s.protections, symbols))
  if (env.TELEGRAM_BOT_TOKEN !== undefined && s.telegram.allowedChatIds.length === 0)
    out.push(
      'telegram.allowedChatIds: TELEGRAM_BOT_TOKEN is set but no chat is allowed; list your chat id(s)',
    )
  if (s.mode === 'live') {
    const need = new Set(needs)
    if (need.has('perpsUrl') && !(env.PERPS_URL ?? s.perps.url))
      out.push('perps.url: live mode needs PERPS_URL (env) or perps.url')
    if (need.has('catalogueUrl') && !(env.CATALOGUE_URL ?? s.catalogue.url)) {
      out.push('catalogue.url: live mode needs CATALOGUE_URL (env) or catalogue.url')
    }
    if (need.has('proxyCredentials')) {
      if (!env.PERPS_PROXY_PRIVATE_KEY) out.push('env PERPS_PROXY_PRIVATE_KEY: required in live mode')
      if (!env.PERPS_PROXY_SECRET) out.push('env PERPS_PROXY_SECRET: required in live mode')
    }
    if (need.has('ownerKey') && !env.PERPS_OWNER_PRIVATE_KEY)
      out.push('env PERPS_OWNER_PRIVATE_KEY: required (the owner wallet key that signs the new proxy)')
  }
  return out
}

function pickEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const key of Object.keys(Secrets.shape)) {
    const v = env[key]
    if (v !== undefined && v !== '') out[key] = v
  }
  return out
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** Objects merge key by key; arrays and scalars in `over` replace those in `base`. */
export function deepMerge(
  base: Record<string, unknown>,
  over: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base }
  for (const [k, v] of Object.entries(over)) {
    const b = Object.hasOwn(out, k) ? out[k] : undefined
    // Defined, not assigned: `out.__proto__ = v` would swap the prototype and hide the key from the schema.
    Object.defineProperty(out, k, {
      value: isPlainObject(b) && isPlainObject(v) ? deepMerge(b, v) : v,
      enumerable: true,
      writable: true,
      configurable: true,
    })
  }
  return out
}

function setPath(obj: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const [head, ...rest] = path.split('.')
  if (head === undefined || head === '') return obj
  if (rest.length === 0) return { ...obj, [head]: value }
  const child = obj[head]
  return { ...obj, [head]: setPath(isPlainObject(child) ? child : {}, rest.join('.'), value) }
}

/** Environment entries that are addresses, not secrets: `config --explain` shows them. */
const ADDRESS_KEYS: ReadonlySet<string> = new Set(['PERPS_URL', 'PERPS_WS_URL', 'CATALOGUE_URL'])

/** The effective configuration with every secret replaced by a marker (for `config --explain`). */
export function explainSettings(loaded: LoadedSettings): Record<string, unknown> {
  const secrets: Record<string, string> = {}
  for (const [k, v] of Object.entries(loaded.secrets)) {
    if (v === undefined) continue
    secrets[k] = ADDRESS_KEYS.has(k) ? v : '[redacted]'
  }
  return { sources: loaded.sources, settings: loaded.settings, environment: secrets }
}

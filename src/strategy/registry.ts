/**
 * The strategy registry. Strategies come from folders: a folder may hold a listing (`index.ts`
 * exporting `strategies`, each entry naming its module; the shipped `strategies/` has one) and any
 * number of drop-in modules, loaded by dynamic `import()` of their file URL. Run from the build
 * (`npm run build`: `dist/`), the shipped folder is `dist/strategies/` (compiled) and `strategies/` is
 * its source: there only the modules the build did not compile are loaded (see `compiledTwin`). Nothing
 * here imports a strategy: start-up names the folders. The scan skips the listing and
 * the modules it lists, so each file is loaded once. Every `strategy` export is checked for shape;
 * names must be unique. `resolve(name, rawParams)` parses the params with the strategy's own schema
 * and binds them, so the actor just calls `resolved.quote(snapshot)`.
 */
import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs'
import { basename, join, relative, resolve as resolvePath } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { fieldOf, isOneOf } from '../guards.ts'
import { StrategyLoadError } from './registryErrors.ts'
import { resolveStrategy, type StrategyRegistry } from './registryResolve.ts'
import { OPTIONAL_INPUTS, type Strategy } from './strategy.ts'

export * from './registryErrors.ts'
export * from './registryResolve.ts'

// ---------------------------------------------------------------------------------------------------
// Shipped strategies and module discovery
// ---------------------------------------------------------------------------------------------------

/**
 * The shipped strategies and their listing: the top-level `strategies/` folder when this runs from the
 * sources, `dist/strategies/` (compiled beside `dist/src/`) when it runs from the build.
 */
export const DEFAULT_STRATEGIES_DIR: string = fileURLToPath(new URL('../../strategies/', import.meta.url))

/**
 * Run from the build (`<root>/dist/src/...`): the folder the shipped strategies were compiled from,
 * `<root>/strategies` (also the default plug-in folder). Undefined when this runs from the sources, or
 * from an image that holds the compiled tree alone (the Dockerfile copies `dist/` to the app's root).
 */
export const SHIPPED_SOURCE_DIR: string | undefined =
  basename(resolvePath(DEFAULT_STRATEGIES_DIR, '..')) === 'dist'
    ? resolvePath(DEFAULT_STRATEGIES_DIR, '..', '..', 'strategies')
    : undefined

/** `x.ts` → `x.js`, `x.mts` → `x.mjs`: the name the build gives a module (others unchanged). */
export function compiledName(path: string): string {
  return path.replace(/\.ts$/, '.js').replace(/\.mts$/, '.mjs')
}

/** One entry of a folder's listing: the module (relative to the folder) and its strategy. */
export interface ListedStrategy {
  readonly module: string
  readonly strategy: Strategy<unknown>
}

/** A folder's listing file names, in the order they are looked for. */
const LISTING_FILES = ['index.ts', 'index.mts', 'index.js', 'index.mjs']

const MODULE_RE = /\.(ts|mts|js|mjs)$/
const SKIP_RE = /(\.d\.ts|\.test\.[cm]?[jt]s|\.spec\.[cm]?[jt]s)$/

/** How long one strategy module may take to import before the start is refused (wall time). */
export const STRATEGY_IMPORT_TIMEOUT_MS = 10_000

/**
 * Whether `p` is a regular file (following symlinks). A FIFO, socket or device named like a module
 * would block the import forever: only regular files are read.
 */
function isRegularFile(p: string): boolean {
  try {
    return statSync(p).isFile()
  } catch {
    return false
  }
}

function safeRealpath(p: string): string {
  try {
    return realpathSync(p)
  } catch {
    return resolvePath(p)
  }
}

/**
 * Strategy modules in `directory`, sorted: top-level `*.ts|*.mts|*.js|*.mjs` files and `<folder>/index.*`.
 * Names starting with `_` or `.` are helpers and skipped, as are `.d.ts` and test files, and the
 * folder's own `index.*`, which is its listing (see `loadStrategyListing`).
 */
export function discoverStrategyFiles(directory: string): string[] {
  const dir = resolvePath(directory)
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new StrategyLoadError(dir, 'strategies directory does not exist')
  }
  const files: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    if (entry.name.startsWith('_') || entry.name.startsWith('.')) continue
    const full = join(dir, entry.name)
    if (entry.isDirectory()) {
      const index = LISTING_FILES.map((f) => join(full, f)).find(existsSync)
      if (index !== undefined) files.push(regularModule(index))
    } else if (
      MODULE_RE.test(entry.name) &&
      !SKIP_RE.test(entry.name) &&
      !LISTING_FILES.includes(entry.name)
    ) {
      files.push(regularModule(full))
    }
  }
  return files
}

/** The path of a module to import, refused when it is not a regular file (it could block forever). */
function regularModule(path: string): string {
  if (!isRegularFile(path))
    throw new StrategyLoadError(path, 'not a regular file (a FIFO, socket or device?)', [
      'only regular files are read as strategy modules: remove it from the strategies folder',
    ])
  return path
}

/**
 * Checks a value against the strategy contract; throws `StrategyLoadError` listing every problem.
 * `paramsSchema` is duck-typed (`safeParse`), so a plug-in may bring its own copy of zod.
 */
export function validateStrategyExport(value: unknown, file: string | undefined): Strategy<unknown> {
  if (value === null || typeof value !== 'object') {
    throw new StrategyLoadError(file, 'export `strategy` must be an object built with defineStrategy', [
      `got ${value === null ? 'null' : typeof value}`,
    ])
  }
  const v = value as Record<string, unknown>
  const problems: string[] = []
  if (typeof v.name !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(v.name)) {
    problems.push('name must be a non-empty string of letters, digits, ".", "_" or "-"')
  }
  if (typeof v.description !== 'string') problems.push('description must be a string')
  if (typeof fieldOf(v.paramsSchema, 'safeParse') !== 'function') {
    problems.push('paramsSchema must be a zod schema (an object with safeParse)')
  }
  if (typeof v.quote !== 'function')
    problems.push('quote must be a function (snapshot, params) => DesiredQuote[]')
  if (v.catalogue !== undefined && typeof v.catalogue !== 'function') {
    problems.push('catalogue, when present, must be a function (params) => CatalogueQuery | undefined')
  }
  if (v.revisitAt !== undefined && typeof v.revisitAt !== 'function') {
    problems.push('revisitAt, when present, must be a function (snapshot, params) => number | undefined')
  }
  if (v.maxOrders !== undefined && typeof v.maxOrders !== 'function') {
    problems.push('maxOrders, when present, must be a function (params) => number')
  }
  if (
    v.reads !== undefined &&
    !(Array.isArray(v.reads) && v.reads.every((r) => isOneOf(OPTIONAL_INPUTS, r)))
  ) {
    problems.push(
      `reads, when present, must be an array of ${OPTIONAL_INPUTS.map((i) => `'${i}'`).join(', ')}`,
    )
  }
  if (problems.length > 0) {
    const label = typeof v.name === 'string' ? ` "${v.name}"` : ''
    throw new StrategyLoadError(file, `invalid strategy export${label}`, problems)
  }
  return value as Strategy<unknown>
}

/** Imports a module by file path; an import failure is a `StrategyLoadError` naming the file. */
async function importModule(
  abs: string,
  timeoutMs = STRATEGY_IMPORT_TIMEOUT_MS,
): Promise<Record<string, unknown>> {
  let timer: ReturnType<typeof setTimeout> | undefined
  // A module that never finishes loading (a top-level await that never settles) must not hang the
  // start: it is refused after `timeoutMs`. The import itself cannot be cancelled.
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new StrategyLoadError(abs, `the strategy module did not load within ${timeoutMs} ms`, [
            'a top-level await that never settles, or a file that blocks on read',
          ]),
        ),
      timeoutMs,
    )
    // Not unref'd: while a module's top-level await hangs, this timer is all that keeps the process
    // alive; unref'd, Node ended it with exit 13 and no message (issue 34) before the refusal.
  })
  try {
    return await Promise.race([import(pathToFileURL(abs).href), late]) // a module namespace object
  } catch (e) {
    if (e instanceof StrategyLoadError) throw e
    throw new StrategyLoadError(
      abs,
      'failed to import strategy module',
      [e instanceof Error ? e.message : String(e)],
      { cause: e },
    )
  } finally {
    clearTimeout(timer)
  }
}

/** Imports one module and validates its named `strategy` export. */
export async function loadStrategyFile(
  file: string,
  timeoutMs = STRATEGY_IMPORT_TIMEOUT_MS,
): Promise<Strategy<unknown>> {
  const abs = resolvePath(regularModule(resolvePath(file)))
  const mod = await importModule(abs, timeoutMs)
  if (!('strategy' in mod) || mod.strategy === undefined) {
    const names = Object.keys(mod)
    throw new StrategyLoadError(abs, 'module has no named export `strategy`', [
      names.length > 0 ? `exports found: ${names.join(', ')}` : 'the module exports nothing',
    ])
  }
  return validateStrategyExport(mod.strategy, abs)
}

/** A folder's listing, read: the listed strategies with their module files, and the listing file. */
export interface StrategyListing {
  readonly file: string
  readonly entries: readonly { readonly file: string; readonly strategy: Strategy<unknown> }[]
}

/**
 * Reads `directory`'s listing (`index.ts`, `.mts`, `.js` or `.mjs`), undefined when it has none. The
 * listing exports `strategies: { module, strategy }[]`; each module is a `./` path inside the folder.
 * @throws {StrategyLoadError} naming the listing for a malformed export or a module that is not there.
 */
export async function loadStrategyListing(
  directory: string,
  timeoutMs = STRATEGY_IMPORT_TIMEOUT_MS,
): Promise<StrategyListing | undefined> {
  const dir = resolvePath(directory)
  const file = LISTING_FILES.map((f) => join(dir, f)).find(existsSync)
  if (file === undefined) return undefined
  const listed = (await importModule(regularModule(file), timeoutMs)).strategies
  if (!Array.isArray(listed)) {
    throw new StrategyLoadError(file, 'a strategies listing must export `strategies`, an array', [
      `got ${listed === null ? 'null' : typeof listed}`,
    ])
  }
  const entries = listed.map((raw: unknown, i) => {
    const module = fieldOf(raw, 'module')
    // The build compiles the listing and its modules but not the names in it: `./x.ts` is `./x.js` there.
    const named = typeof module === 'string' ? resolvePath(dir, module) : undefined
    const full = named !== undefined && !isRegularFile(named) ? compiledName(named) : named
    if (
      typeof module !== 'string' ||
      !module.startsWith('./') ||
      full === undefined ||
      !isRegularFile(full)
    ) {
      throw new StrategyLoadError(file, `strategies[${i}].module must name a file of this folder`, [
        `got ${JSON.stringify(module) ?? 'undefined'}`,
      ])
    }
    const strategy = validateStrategyExport(fieldOf(raw, 'strategy'), full)
    return { file: full, strategy }
  })
  return { file, entries }
}

export interface LoadStrategiesOptions {
  /** Folder scanned for plug-ins; defaults to the top-level `strategies/`. */
  directory?: string | undefined
  /** The folder of the shipped strategies (start-up names it); default the top-level `strategies/`. */
  shippedDirectory?: string | undefined
  /** Include the shipped folder (default true). */
  includeShipped?: boolean | undefined
  /** How long each module may take to import (default `STRATEGY_IMPORT_TIMEOUT_MS`). */
  importTimeoutMs?: number | undefined
}

/**
 * Loads the shipped folder (unless excluded) and the plug-in folder into one registry: each folder's
 * listing, then its other modules. The same folder given twice is read once.
 */
export async function loadStrategies(options: LoadStrategiesOptions = {}): Promise<StrategyRegistry> {
  const shippedDir = safeRealpath(options.shippedDirectory ?? DEFAULT_STRATEGIES_DIR)
  const folders: string[] = []
  if (options.includeShipped ?? true) folders.push(shippedDir)
  const plugins = resolvePath(options.directory ?? DEFAULT_STRATEGIES_DIR)
  if (!existsSync(plugins) || !statSync(plugins).isDirectory()) {
    throw new StrategyLoadError(plugins, 'strategies directory does not exist')
  }
  const sourceOfShipped =
    SHIPPED_SOURCE_DIR !== undefined && safeRealpath(plugins) === safeRealpath(SHIPPED_SOURCE_DIR)
  if (!folders.includes(safeRealpath(plugins))) folders.push(plugins)
  const entries: RegistryEntry[] = []
  for (const folder of folders) {
    if (folder === plugins && sourceOfShipped) {
      // The shipped folder's source: its listing and every module the build compiled are loaded
      // from the shipped folder; what was dropped in after the build loads as it is.
      for (const file of discoverStrategyFiles(folder)) {
        if (hasCompiledTwin(file, folder, shippedDir)) continue
        entries.push({ strategy: await loadStrategyFile(file, options.importTimeoutMs), source: file })
      }
      continue
    }
    const listing = await loadStrategyListing(folder, options.importTimeoutMs)
    const listed = new Set(listing?.entries.map((e) => safeRealpath(e.file)))
    for (const e of listing?.entries ?? []) {
      entries.push({
        strategy: e.strategy,
        source: folder === shippedDir ? `shipped (${e.strategy.name})` : e.file,
      })
    }
    for (const file of discoverStrategyFiles(folder)) {
      if (listed.has(safeRealpath(file))) continue
      entries.push({ strategy: await loadStrategyFile(file, options.importTimeoutMs), source: file })
    }
  }
  return createStrategyRegistry(entries)
}

/**
 * Whether `file` (in `sourceDir`) was compiled into `buildDir` by the build; a source changed after its
 * compiled twin is refused, so the bot never runs a strategy other than the one on disk.
 * @throws {StrategyLoadError} when the source is newer than its compiled twin.
 */
function hasCompiledTwin(file: string, sourceDir: string, buildDir: string): boolean {
  const twin = join(buildDir, compiledName(relative(sourceDir, file)))
  if (!isRegularFile(twin)) return false
  if (statSync(file).mtimeMs > statSync(twin).mtimeMs) {
    throw new StrategyLoadError(file, 'changed after the last build (its compiled twin is older)', [
      `rebuild with \`npm run build\`: the bot runs ${twin}`,
    ])
  }
  return true
}

// ---------------------------------------------------------------------------------------------------
// Registry and resolution
// ---------------------------------------------------------------------------------------------------

export interface RegistryEntry {
  strategy: Strategy<unknown>
  /** Where it came from (a file path, or `shipped (name)`), for messages. */
  source: string
}

/** Builds a registry; throws `StrategyLoadError` naming both sources when two strategies share a name. */
export function createStrategyRegistry(entries: readonly RegistryEntry[]): StrategyRegistry {
  const byName = new Map<string, RegistryEntry>()
  for (const entry of entries) {
    const s = validateStrategyExport(entry.strategy, entry.source)
    const prior = byName.get(s.name)
    if (prior !== undefined) {
      throw new StrategyLoadError(undefined, `duplicate strategy name "${s.name}"`, [
        `first: ${prior.source}`,
        `again: ${entry.source}`,
      ])
    }
    byName.set(s.name, entry)
  }
  const registry: StrategyRegistry = {
    names: () => [...byName.keys()].sort(),
    get: (name) => byName.get(name)?.strategy,
    source: (name) => byName.get(name)?.source,
    resolve: (name, rawParams) => resolveStrategy(registry, name, rawParams),
  }
  return registry
}

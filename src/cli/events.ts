/**
 * `perpbot events`: a catalogue query with the spec's filters, following cursors, printed as a table
 * or NDJSON. Against the embedded mock by default; `--live` uses CATALOGUE_URL.
 */
import { parseArgs } from 'node:util'
import { createCatalogueClient } from '../catalogue/client/createCatalogueClient.ts'
import type { ListEventsKeysetParams } from '../catalogue/client/listEventsKeyset.ts'
import { systemClock } from '../clock.ts'
import { CATALOGUE_MAX_BODY_BYTES, createHttpTransport } from '../http/transport.ts'
import { startMockServer } from '../mock/server.ts'
import { systemRandom } from '../random.ts'
import { loadSettings } from '../settings/load.ts'
import { type CliContext, UsageError } from './context.ts'

/** Every option with its help line: the parser's options and the usage come from this one table. */
const EVENTS_OPTIONS = {
  live: { type: 'boolean', help: 'read the catalogue at CATALOGUE_URL (default: the embedded mock)' },
  format: { type: 'string', arg: 'table|ndjson', help: 'a table (default) or one JSON event per line' },
  limit: { type: 'string', arg: 'N', help: 'print at most N events in all (default 100; alias --max)' },
  max: { type: 'string', arg: 'N', help: 'same as --limit' },
  'page-size': { type: 'string', arg: 'N', help: 'events per request while following cursors (default 100)' },
  id: { type: 'string', multiple: true, arg: 'N', help: 'only this event id (repeatable)' },
  slug: { type: 'string', multiple: true, arg: 'S', help: 'only this event slug (repeatable)' },
  'tag-id': { type: 'string', multiple: true, arg: 'N', help: 'events with this tag id (repeatable)' },
  'exclude-tag-id': {
    type: 'string',
    multiple: true,
    arg: 'N',
    help: 'not events with this tag id (repeatable)',
  },
  'tag-slug': { type: 'string', arg: 'S', help: 'events with this tag slug' },
  'tag-match': { type: 'string', arg: 'any|all', help: 'with several tags: any of them (default) or all' },
  'related-tags': { type: 'boolean', help: 'also match tags related to the given ones' },
  'series-id': { type: 'string', multiple: true, arg: 'N', help: 'events of this series (repeatable)' },
  title: { type: 'string', arg: 'TEXT', help: 'events whose title contains TEXT' },
  closed: { type: 'string', arg: 'true|false', help: 'only closed, or only open, events' },
  'live-only': { type: 'boolean', help: 'only events live now' },
  featured: { type: 'boolean', help: 'only featured events' },
  order: {
    type: 'string',
    arg: 'FIELD[,FIELD]',
    help: 'sort by these camelCase event fields (e.g. volume24hr)',
  },
  descending: { type: 'boolean', help: 'with --order: largest first' },
  recurrence: { type: 'string', arg: 'daily|weekly|monthly', help: 'only events that recur so' },
  'volume-min': { type: 'string', arg: 'X', help: 'volume at least X' },
  'volume-max': { type: 'string', arg: 'X', help: 'volume at most X' },
  'liquidity-min': { type: 'string', arg: 'X', help: 'liquidity at least X' },
  'liquidity-max': { type: 'string', arg: 'X', help: 'liquidity at most X' },
  'start-date-min': { type: 'string', arg: 'ISO', help: 'starting on or after this date (ISO 8601)' },
  'end-date-max': { type: 'string', arg: 'ISO', help: 'ending on or before this date (ISO 8601)' },
  help: { type: 'boolean', short: 'h', help: 'this help' },
} as const satisfies Record<
  string,
  { type: 'string' | 'boolean'; multiple?: boolean; short?: string; arg?: string; help: string }
>

export const EVENTS_OPTION_NAMES: readonly string[] = Object.keys(EVENTS_OPTIONS)

function eventsUsage(): string {
  const rows = Object.entries(EVENTS_OPTIONS).map(([name, o]) => {
    const arg = 'arg' in o ? ` ${o.arg}` : ''
    const flag = `${'short' in o ? `-${o.short}, ` : ''}--${name}${arg}`
    return `  ${flag.padEnd(36)}${o.help}`
  })
  return [
    'usage: perpbot events [options]',
    '  Queries the event catalogue with its filters, following cursors; prints a table or NDJSON.',
    '  Against a throwaway embedded mock by default; --live reads CATALOGUE_URL.',
    '',
    ...rows,
    '',
    '  perpbot events --closed false --order volume24hr --descending --limit 10',
  ].join('\n')
}

export const EVENTS_USAGE = eventsUsage()

/** The parser's view of the table (help text dropped). */
const PARSE_OPTIONS = Object.fromEntries(
  Object.entries(EVENTS_OPTIONS).map(([name, o]) => [
    name,
    {
      type: o.type,
      ...('multiple' in o ? { multiple: o.multiple } : {}),
      ...('short' in o ? { short: o.short } : {}),
    },
  ]),
)

const ints = (name: string, v: string[] | undefined): number[] | undefined =>
  v?.map((x) => {
    const n = Number(x)
    if (!Number.isInteger(n)) throw new UsageError(`--${name} must be an integer`)
    return n
  })
const num = (name: string, v: string | undefined): number | undefined => {
  if (v === undefined) return undefined
  const n = Number(v)
  if (!Number.isFinite(n)) throw new UsageError(`--${name} must be a number`)
  return n
}

export async function eventsCommand(ctx: CliContext): Promise<number> {
  const { values: raw } = parseArgs({ args: [...ctx.argv], options: PARSE_OPTIONS, strict: true })
  const values = eventsValues(raw)
  if (values.help) {
    ctx.stdout(EVENTS_USAGE)
    return 0
  }
  const format = values.format ?? 'table'
  if (format !== 'table' && format !== 'ndjson') throw new UsageError('--format must be table or ndjson')
  if (values.closed !== undefined && values.closed !== 'true' && values.closed !== 'false')
    throw new UsageError('--closed must be true or false')
  if (values.limit !== undefined && values.max !== undefined && values.limit !== values.max)
    throw new UsageError('--limit and --max are the same option: give one')
  const max = num('limit', values.limit ?? values.max) ?? 100
  if (!Number.isInteger(max) || max < 0) throw new UsageError('--limit must be a whole number of events')
  const params: Record<string, unknown> = {
    limit: num('page-size', values['page-size'] ?? '100'),
    ids: ints('id', values.id),
    slugs: values.slug,
    tagIds: ints('tag-id', values['tag-id']),
    excludeTagIds: ints('exclude-tag-id', values['exclude-tag-id']),
    tagSlug: values['tag-slug'],
    tagMatch: values['tag-match'],
    relatedTags: values['related-tags'],
    seriesIds: ints('series-id', values['series-id']),
    titleSearch: values.title,
    closed: values.closed === undefined ? undefined : values.closed === 'true',
    live: values['live-only'],
    featured: values.featured,
    order: values.order?.split(',').filter(Boolean),
    ascending: values.order ? !values.descending : undefined,
    recurrence: values.recurrence,
    volumeMin: num('volume-min', values['volume-min']),
    volumeMax: num('volume-max', values['volume-max']),
    liquidityMin: num('liquidity-min', values['liquidity-min']),
    liquidityMax: num('liquidity-max', values['liquidity-max']),
    startDateMin: values['start-date-min'],
    endDateMax: values['end-date-max'],
  }
  for (const k of Object.keys(params)) if (params[k] === undefined) delete params[k]

  let url: string
  let close = async (): Promise<void> => undefined
  if (values.live) {
    // The catalogue is public: only its address is needed.
    const { settings, secrets } = loadSettings({
      configDir: ctx.configDir,
      mode: 'live',
      env: ctx.env,
      needs: ['catalogueUrl'],
    })
    const u = secrets.CATALOGUE_URL ?? settings.catalogue.url
    if (!u) throw new UsageError('--live needs CATALOGUE_URL (env) or catalogue.url in the config')
    url = u
  } else {
    const mock = await startMockServer({ port: 0 })
    url = mock.url
    close = () => mock.close()
  }
  ctx.stderr(
    `reading the catalogue at ${url}${values.live ? '' : ' (the embedded mock; --live for CATALOGUE_URL)'}`,
  )
  const transport = createHttpTransport({ baseUrl: url, maxBodyBytes: CATALOGUE_MAX_BODY_BYTES })
  const client = createCatalogueClient({ transport, clock: systemClock, random: systemRandom })
  let count = 0
  try {
    if (format === 'table') ctx.stdout(row(['id', 'slug', 'title', 'volume24hr', 'markets', 'closed']))
    outer: for await (const page of client.paginateEvents(params as ListEventsKeysetParams, {
      signal: ctx.signal,
    })) {
      for (const e of page.events) {
        if (count >= max) break outer
        count++
        if (format === 'ndjson') ctx.stdout(JSON.stringify(e))
        else
          ctx.stdout(
            row([
              e.id,
              e.slug ?? '',
              (e.title ?? '').slice(0, 60),
              e.volume24hr === null || e.volume24hr === undefined ? '' : e.volume24hr.toFixed(0),
              String(e.markets?.length ?? 0),
              String(e.closed ?? ''),
            ]),
          )
      }
    }
  } finally {
    await transport.close()
    await close()
  }
  if (format === 'table') ctx.stderr(`${count} event(s)`)
  return 0
}

function row(cells: readonly string[]): string {
  const widths = [10, 40, 60, 12, 8, 6]
  return cells.map((c, i) => c.padEnd(widths[i] ?? 10)).join(' ')
}

type EventsValues = {
  [K in keyof typeof EVENTS_OPTIONS]?: (typeof EVENTS_OPTIONS)[K] extends { type: 'boolean' }
    ? boolean
    : (typeof EVENTS_OPTIONS)[K] extends { multiple: true }
      ? string[]
      : string
}

/** The parsed values, typed by the table (parseArgs types a computed options object loosely). */
function eventsValues(
  raw: Record<string, string | boolean | (string | boolean)[] | undefined>,
): EventsValues {
  const out: Record<string, string | boolean | string[]> = {}
  for (const [name, o] of Object.entries(EVENTS_OPTIONS)) {
    const v = raw[name]
    if (v === undefined) continue
    if (o.type === 'boolean') out[name] = v === true
    else if ('multiple' in o) out[name] = (Array.isArray(v) ? v : [v]).map(String)
    else out[name] = String(v)
  }
  return out
}

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

export const EVENTS_USAGE = `usage: perpbot events [--live] [--format table|ndjson] [--max N] [--page-size N]
    [--id N]... [--slug S]... [--tag-id N]... [--exclude-tag-id N]... [--tag-slug S] [--tag-match any|all]
    [--related-tags] [--series-id N]... [--title TEXT] [--closed true|false] [--live-only] [--featured]
    [--order FIELD[,FIELD]] [--descending] [--recurrence daily|weekly|monthly]
    [--volume-min X] [--volume-max X] [--liquidity-min X] [--liquidity-max X]
    [--start-date-min ISO] [--end-date-max ISO]`

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
  const { values } = parseArgs({
    args: [...ctx.argv],
    options: {
      live: { type: 'boolean', default: false },
      format: { type: 'string', default: 'table' },
      max: { type: 'string', default: '100' },
      'page-size': { type: 'string', default: '100' },
      id: { type: 'string', multiple: true },
      slug: { type: 'string', multiple: true },
      'tag-id': { type: 'string', multiple: true },
      'exclude-tag-id': { type: 'string', multiple: true },
      'tag-slug': { type: 'string' },
      'tag-match': { type: 'string' },
      'related-tags': { type: 'boolean' },
      'series-id': { type: 'string', multiple: true },
      title: { type: 'string' },
      closed: { type: 'string' },
      'live-only': { type: 'boolean' },
      featured: { type: 'boolean' },
      order: { type: 'string' },
      descending: { type: 'boolean' },
      recurrence: { type: 'string' },
      'volume-min': { type: 'string' },
      'volume-max': { type: 'string' },
      'liquidity-min': { type: 'string' },
      'liquidity-max': { type: 'string' },
      'start-date-min': { type: 'string' },
      'end-date-max': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  })
  if (values.help) {
    ctx.stdout(EVENTS_USAGE)
    return 0
  }
  if (values.format !== 'table' && values.format !== 'ndjson')
    throw new UsageError('--format must be table or ndjson')
  if (values.closed !== undefined && values.closed !== 'true' && values.closed !== 'false')
    throw new UsageError('--closed must be true or false')
  const max = num('max', values.max) ?? 100
  const params: Record<string, unknown> = {
    limit: num('page-size', values['page-size']),
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
    if (values.format === 'table') ctx.stdout(row(['id', 'slug', 'title', 'volume24hr', 'markets', 'closed']))
    outer: for await (const page of client.paginateEvents(params as ListEventsKeysetParams, {
      signal: ctx.signal,
    })) {
      for (const e of page.events) {
        if (count >= max) break outer
        count++
        if (values.format === 'ndjson') ctx.stdout(JSON.stringify(e))
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
  if (values.format === 'table') ctx.stderr(`${count} event(s)`)
  return 0
}

function row(cells: readonly string[]): string {
  const widths = [10, 40, 60, 12, 8, 6]
  return cells.map((c, i) => c.padEnd(widths[i] ?? 10)).join(' ')
}

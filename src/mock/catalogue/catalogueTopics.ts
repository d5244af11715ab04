/**
 * The topics events are generated from (crypto daily/monthly, sports games, elections, macro, tech,
 * weather, culture), laid out with their categories, tags, series, templates and collections.
 */
import type { Random } from '../../random.ts'
import type { Topic } from './catalogueTypes.ts'
import type { ReferenceFactory } from './referenceFactory.ts'
import { CITIES, COINS, COMPANIES, COUNTRIES, FIRST, LAST, LEAGUES, MOVIES } from './universeNames.ts'
import { chance, hex } from './wireFormat.ts'

/** Draws the topics in a fixed order (the seed's draw order depends on it). */
export function drawTopics(rng: Random, ref: ReferenceFactory): Topic[] {
  const { past, category, tag, chat, template, collection, series } = ref
  const topics: Topic[] = []
  const topic = (t: Omit<Topic, 'seriesChat'>): void => {
    const seriesChat =
      t.series && chance(rng, 0.5)
        ? chat(`${t.series.title ?? t.subject} chat`, past(10, 200), false)
        : undefined
    topics.push({ ...t, seriesChat })
  }

  const crypto = category('Crypto')
  for (const [name, code, cg] of COINS) {
    const dailyTags = [tag('Crypto'), tag('Crypto Prices'), tag(name), tag('Up or Down'), tag('Recurring')]
    const dailySeries = series(`${name} Up or Down Daily`, 'daily', crypto, dailyTags, {
      pythTokenID: `0x${hex(rng, 64)}`,
      cgAssetName: cg,
    })
    topic({
      kind: 'cryptoDaily',
      subject: name,
      code,
      category: crypto,
      tagIds: dailyTags,
      series: dailySeries,
      template: template(`${name} Up or Down on {{date}}?`, 'Up or Down', dailySeries.slug ?? '', false),
      collection: undefined,
      names: [],
      weight: 7,
    })
    const monthlyTags = [tag('Crypto'), tag('Crypto Prices'), tag(name), tag('Hit Price')]
    topic({
      kind: 'cryptoMonthly',
      subject: name,
      code,
      category: crypto,
      tagIds: monthlyTags,
      series: series(`${name} Monthly Price`, 'monthly', crypto, monthlyTags, { cgAssetName: cg }),
      template: undefined,
      collection: undefined,
      names: [],
      weight: 2,
    })
  }

  const sports = category('Sports')
  for (const league of LEAGUES) {
    const tags = [tag('Sports'), tag(league.code), tag(league.sport), tag('Games')]
    topic({
      kind: 'game',
      subject: league.code,
      code: league.code,
      category: category(league.sport, sports),
      tagIds: tags,
      series: series(league.code, league.recurrence, sports, tags),
      template: undefined,
      collection: undefined,
      names: league.teams,
      weight: 7,
    })
  }

  const politics = category('Politics')
  const elections = collection('Global Elections', ['Politics', 'Elections'])
  for (const country of COUNTRIES) {
    const names: string[] = []
    for (let i = 0; i < 6; i++) names.push(`${rng.pick(FIRST)} ${rng.pick(LAST)}`)
    topic({
      kind: 'election',
      subject: country,
      code: country.slice(0, 3).toUpperCase(),
      category: category('World', politics),
      tagIds: [tag('Politics'), tag('Elections'), tag('World'), tag(country)],
      series: undefined,
      template: undefined,
      collection: elections,
      names: [...new Set(names)],
      weight: 0.6,
    })
  }

  const economy = category('Economics')
  const fedTags = [tag('Economy'), tag('Fed Rates'), tag('Macro')]
  topic({
    kind: 'macro',
    subject: 'Fed',
    code: 'FED',
    category: economy,
    tagIds: fedTags,
    series: series('Fed Interest Rates', 'monthly', economy, fedTags),
    template: undefined,
    collection: undefined,
    names: ['50+ bps decrease', '25 bps decrease', 'No change', '25+ bps increase'],
    weight: 3,
  })
  const cpiTags = [tag('Economy'), tag('Inflation'), tag('Macro')]
  topic({
    kind: 'macro',
    subject: 'CPI',
    code: 'CPI',
    category: economy,
    tagIds: cpiTags,
    series: series('US CPI', 'monthly', economy, cpiTags),
    template: undefined,
    collection: undefined,
    names: ['≤0.1%', '0.2%', '0.3%', '0.4%', '≥0.5%'],
    weight: 3,
  })

  const tech = category('Tech')
  const aiRace = collection('AI Race', ['Tech', 'AI'])
  for (const [company, products] of COMPANIES) {
    topic({
      kind: 'tech',
      subject: company,
      code: company.slice(0, 4).toUpperCase(),
      category: tech,
      tagIds: [tag('Tech'), tag('AI'), tag(company)],
      series: undefined,
      template: undefined,
      collection: chance(rng, 0.6) ? aiRace : undefined,
      names: products,
      weight: 1.5,
    })
  }

  const weather = category('Weather', category('Science'))
  for (const city of CITIES) {
    const tags = [tag('Weather'), tag('Daily Temperature'), tag(city), tag('Recurring')]
    const s = series(`${city} Daily Weather`, 'daily', weather, tags)
    topic({
      kind: 'weather',
      subject: city,
      code: city.slice(0, 3).toUpperCase(),
      category: weather,
      tagIds: tags,
      series: s,
      template: template(`Highest temperature in ${city} on {{date}}?`, '{{range}}', s.slug ?? '', true),
      collection: undefined,
      names: [],
      weight: 2,
    })
  }

  const culture = category('Culture')
  topic({
    kind: 'culture',
    subject: 'Box Office',
    code: 'BOX',
    category: culture,
    tagIds: [tag('Culture'), tag('Movies'), tag('Box Office')],
    series: undefined,
    template: undefined,
    collection: undefined,
    names: MOVIES,
    weight: 2,
  })

  return topics
}

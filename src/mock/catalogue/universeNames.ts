/** The fixed name lists the generated catalogue draws from: coins, leagues and teams, countries, people, companies, cities, films. */

export const COINS = [
  ['Bitcoin', 'BTC', 'bitcoin'],
  ['Ethereum', 'ETH', 'ethereum'],
  ['Solana', 'SOL', 'solana'],
  ['XRP', 'XRP', 'ripple'],
] as const

export const LEAGUES = [
  {
    code: 'NBA',
    sport: 'Basketball',
    recurrence: 'daily',
    teams: [
      'Lakers',
      'Celtics',
      'Warriors',
      'Knicks',
      'Nuggets',
      'Bucks',
      'Heat',
      'Suns',
      'Thunder',
      'Mavericks',
    ],
  },
  {
    code: 'NFL',
    sport: 'Football',
    recurrence: 'weekly',
    teams: ['Chiefs', 'Eagles', 'Bills', '49ers', 'Ravens', 'Lions', 'Cowboys', 'Packers', 'Bengals', 'Jets'],
  },
  {
    code: 'EPL',
    sport: 'Soccer',
    recurrence: 'weekly',
    teams: [
      'Arsenal',
      'Chelsea',
      'Liverpool',
      'Man City',
      'Man United',
      'Tottenham',
      'Newcastle',
      'Aston Villa',
    ],
  },
  {
    code: 'MLB',
    sport: 'Baseball',
    recurrence: 'daily',
    teams: [
      'Yankees',
      'Dodgers',
      'Red Sox',
      'Cubs',
      'Mets',
      'Braves',
      'Astros',
      'Giants',
      'Padres',
      'Phillies',
    ],
  },
] as const

export const COUNTRIES = [
  'France',
  'Brazil',
  'Germany',
  'Japan',
  'Canada',
  'India',
  'Mexico',
  'Poland',
  'Chile',
  'Kenya',
]
export const FIRST = [
  'Anna',
  'Marc',
  'Luis',
  'Sofia',
  'Kenji',
  'Amara',
  'Jonas',
  'Elena',
  'Rahul',
  'Claire',
  'Tomas',
  'Ines',
]
export const LAST = [
  'Moreau',
  'Silva',
  'Weber',
  'Tanaka',
  'Tremblay',
  'Sharma',
  'Lopez',
  'Nowak',
  'Rojas',
  'Odhiambo',
]
export const COMPANIES = [
  ['OpenAI', ['GPT-6', 'a browser', 'a device', 'an IPO']],
  ['Apple', ['a foldable iPhone', 'Apple Glasses', 'a new Siri']],
  ['Google', ['Gemini 4', 'a Pixel tablet', 'Waymo in NYC']],
  ['Tesla', ['a robotaxi app', 'the Model 2', 'Optimus sales']],
  ['Nvidia', ['a $6T market cap', 'the Rubin GPU']],
] as const
export const CITIES = ['New York', 'London', 'Seoul', 'Chicago', 'Paris'] as const
export const MOVIES = [
  'Starfall',
  'The Long Road',
  'Neon Harbor',
  'Iron Orchard',
  'Quiet Giants',
  'Paper Kings',
]

/**
 * The create and modify commands' plain readers (src/perps/client/orderInputs.ts) against their
 * schemas: an input a reader takes is one the schema accepts, with the schema's output key for key
 * and in its key order; every input the schema refuses the reader leaves to the schema. Generated
 * over each field's valid and refused values (absent, `undefined`, wrong types, the refinements).
 */
import { describe, expect, it } from 'vitest'
import { CreateOrdersParams } from '../../../src/perps/client/createOrders.ts'
import { ModifyOrdersParams } from '../../../src/perps/client/modifyOrders.ts'
import { plainCreateOrders, plainModifyOrders } from '../../../src/perps/client/orderInputs.ts'
import { seededRandom } from '../../../src/random.ts'

const ABSENT = Symbol('absent')
type Choice = unknown

const DECIMALS: Choice[] = [
  '1',
  '0.5',
  '123.456',
  '0',
  '0.000',
  '00.10',
  '-1',
  '+1',
  '1e3',
  '.5',
  '5.',
  ' 1',
  '1.2.3',
  '',
  '１',
  1,
  null,
  undefined,
  ABSENT,
  '99999999999999999999999999.5',
]
const FIELDS_CREATE: Record<string, Choice[]> = {
  iid: [
    0,
    7,
    4_294_967_295,
    4_294_967_296,
    -1,
    -0,
    1.5,
    Number.NaN,
    Infinity,
    '7',
    undefined,
    ABSENT,
    2 ** 53,
  ],
  buy: [true, false, 'true', 0, undefined, ABSENT],
  p: DECIMALS,
  qty: DECIMALS,
  tif: [ABSENT, 'gtc', 'ioc', 'fok', 'GTC', 'day', '', undefined, ABSENT, ABSENT],
  po: [ABSENT, true, false, 'false', undefined, ABSENT, ABSENT],
  ro: [ABSENT, true, false, 1, undefined, ABSENT, ABSENT],
  coid: [
    ABSENT,
    'a'.repeat(32),
    '0123456789abcdef0123456789abcdef',
    '0'.repeat(32),
    'A'.repeat(32),
    'a'.repeat(31),
    'g'.repeat(32),
    undefined,
    ABSENT,
    ABSENT,
  ],
  trigger: [ABSENT, undefined, { trp: '1', tpsl: 'tp' }],
  extra: [ABSENT, 1, undefined],
}
const FIELDS_MODIFY: Record<string, Choice[]> = {
  oid: [0, 5, 2 ** 53 - 1, 2 ** 53, -1, 1.5, Number.NaN, '5', undefined, ABSENT],
  p: DECIMALS,
  qty: DECIMALS,
  extra: [ABSENT, 'x', undefined],
}

function generate(fields: Record<string, Choice[]>, random: () => number): Record<string, unknown> {
  // Keys in a shuffled order: the schema's output order must not depend on the input's.
  const keys = Object.keys(fields).sort(() => random() - 0.5)
  const item: Record<string, unknown> = {}
  for (const k of keys) {
    const choices = fields[k] ?? []
    // Mostly the field's first choice (valid, or absent) so that whole items are often valid too.
    const v = random() < 0.8 ? choices[0] : choices[Math.floor(random() * choices.length)]
    if (v !== ABSENT) item[k] = v
  }
  return item
}

/** Entries in order, nested: equal only with the same keys in the same order and the same values. */
function ordered(items: readonly object[]): unknown {
  return items.map((i) => Object.entries(i))
}

function holdsToSchema(
  plain: (items: unknown) => object[] | undefined,
  schema: typeof CreateOrdersParams | typeof ModifyOrdersParams,
  fields: Record<string, Choice[]>,
  seed: number,
): { taken: number; refused: number } {
  // Seeded, so a failure reproduces.
  const seeded = seededRandom(seed)
  const random = (): number => seeded.next()
  let taken = 0
  let refused = 0
  for (let n = 0; n < 20_000; n += 1) {
    const items = Array.from({ length: 1 + Math.floor(random() * 3) }, () => generate(fields, random))
    const read = plain(items)
    const parsed = schema.safeParse(items)
    if (!parsed.success) {
      refused += 1
      expect(read, JSON.stringify(items)).toBeUndefined()
    }
    if (read === undefined) continue
    taken += 1
    expect(parsed.success, JSON.stringify(items)).toBe(true)
    if (!parsed.success) continue
    expect(ordered(read)).toStrictEqual(ordered(parsed.data))
    for (const [i, item] of items.entries()) expect(read[i]).not.toBe(item)
  }
  return { taken, refused }
}

describe('plain command inputs', () => {
  it('the create reader takes only what CreateOrdersParams accepts, with its output', () => {
    const { taken, refused } = holdsToSchema(plainCreateOrders, CreateOrdersParams, FIELDS_CREATE, 36)
    // Both sides are exercised: plainly valid inputs are read, refused ones are many.
    expect(taken).toBeGreaterThan(2_000)
    expect(refused).toBeGreaterThan(2_000)
  })

  it('the modify reader takes only what ModifyOrdersParams accepts, with its output', () => {
    const { taken, refused } = holdsToSchema(plainModifyOrders, ModifyOrdersParams, FIELDS_MODIFY, 37)
    expect(taken).toBeGreaterThan(2_000)
    expect(refused).toBeGreaterThan(2_000)
  })

  it("reads the bot's own items and leaves lists, triggers and other objects to the schema", () => {
    const order = { iid: 3, buy: true, p: '101.25', qty: '0.4', tif: 'gtc', po: true, coid: 'ab'.repeat(16) }
    expect(plainCreateOrders([order])).toStrictEqual([order])
    expect(plainModifyOrders([{ oid: 9, p: '1.5', qty: '2' }])).toStrictEqual([
      { oid: 9, p: '1.5', qty: '2' },
    ])
    expect(plainCreateOrders([])).toBeUndefined()
    expect(plainCreateOrders(order)).toBeUndefined()
    expect(plainCreateOrders([{ ...order, trigger: { trp: '1', tpsl: 'sl' } }])).toBeUndefined()
    expect(
      plainModifyOrders([
        new (class {
          oid = 9
          p = '1.5'
          qty = '2'
        })(),
      ]),
    ).toBeUndefined()
    const inherited = Object.create({ extra: 1 })
    Object.assign(inherited, { oid: 9, p: '1.5', qty: '2' })
    expect(plainModifyOrders([inherited])).toBeUndefined()
  })
})

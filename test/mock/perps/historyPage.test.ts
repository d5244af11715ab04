/**
 * The fills page reads by binary search on the ascending history (issue 36: a simulated day scanned
 * its ~10,000 kept fills at every fills poll); it must answer exactly as the filtering `page` does.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { HISTORY_PAGE_LIMIT } from '../../../src/mock/perps/options.ts'
import { ascendingPage } from '../../../src/mock/perps/wire.ts'

/** The reference: filter the window, newest first or oldest first, one page (wire.ts `page`). */
function reference(
  ts: readonly number[],
  start: number | undefined,
  end: number | undefined,
  now: number,
  order: 'newest-first' | 'oldest-first',
): { data: number[]; more: boolean } {
  const inWindow = ts.filter((t) => t >= (start ?? 0) && t <= (end ?? now))
  const ordered = order === 'newest-first' ? [...inWindow].reverse() : inWindow
  return { data: ordered.slice(0, HISTORY_PAGE_LIMIT), more: ordered.length > HISTORY_PAGE_LIMIT }
}

describe('ascendingPage', () => {
  it('answers as filtering the whole history does, for any window and either order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 400 }), { maxLength: 350 }),
        fc.option(fc.integer({ min: -5, max: 410 }), { nil: undefined }),
        fc.option(fc.integer({ min: -5, max: 410 }), { nil: undefined }),
        fc.integer({ min: 0, max: 410 }),
        fc.constantFrom('newest-first' as const, 'oldest-first' as const),
        (raw, start, end, now, order) => {
          const ts = [...raw].sort((a, b) => a - b)
          // Each row its own object, so a page is checked by identity of position too.
          const rows = ts.map((t, i) => ({ t, i }))
          const got = ascendingPage(
            rows,
            (r) => r.t,
            { startTimestamp: start, endTimestamp: end },
            now,
            order,
            (r) => r,
          )
          const want = reference(ts, start, end, now, order)
          expect(got.more).toBe(want.more)
          expect(got.data.map((r) => r.t)).toEqual(want.data)
          // Ties keep their order: the same rows as the filter picks, not just the same times.
          const wantIdx = rows.filter((r) => r.t >= (start ?? 0) && r.t <= (end ?? now)).map((r) => r.i)
          const ordered = order === 'newest-first' ? wantIdx.reverse() : wantIdx
          expect(got.data.map((r) => r.i)).toEqual(ordered.slice(0, HISTORY_PAGE_LIMIT))
        },
      ),
      { numRuns: 400, seed: 36 },
    )
  })
})

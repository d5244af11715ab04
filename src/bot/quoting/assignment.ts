/**
 * The assignment solver of the quote diff: Hungarian algorithm (Kuhn–Munkres with potentials), O(n³).
 * Pure and deterministic for a given matrix. Reads go through `at` (shared/at.ts), which refuses an index
 * outside the array instead of letting `undefined` turn into NaN.
 */
import { at } from '../shared/at.ts'

/** For a square cost matrix, the column assigned to each row in a minimum-cost perfect assignment. */
export function minCostAssignment(cost: readonly (readonly number[])[]): number[] {
  const n = cost.length
  const u = new Array<number>(n + 1).fill(0)
  const v = new Array<number>(n + 1).fill(0)
  const p = new Array<number>(n + 1).fill(0) // p[j]: row assigned to column j (1-based; 0 = none)
  const way = new Array<number>(n + 1).fill(0)
  for (let i = 1; i <= n; i++) {
    p[0] = i
    let j0 = 0
    const minv = new Array<number>(n + 1).fill(Number.POSITIVE_INFINITY)
    const used = new Array<boolean>(n + 1).fill(false)
    do {
      used[j0] = true
      const i0 = at(p, j0)
      const row = at(cost, i0 - 1)
      let delta = Number.POSITIVE_INFINITY
      let j1 = 0
      for (let j = 1; j <= n; j++) {
        if (used[j]) continue
        const cur = at(row, j - 1) - at(u, i0) - at(v, j)
        if (cur < at(minv, j)) {
          minv[j] = cur
          way[j] = j0
        }
        if (at(minv, j) < delta) {
          delta = at(minv, j)
          j1 = j
        }
      }
      for (let j = 0; j <= n; j++) {
        if (used[j]) {
          const pj = at(p, j)
          u[pj] = at(u, pj) + delta
          v[j] = at(v, j) - delta
        } else {
          minv[j] = at(minv, j) - delta
        }
      }
      j0 = j1
    } while (p[j0] !== 0)
    do {
      const j1 = at(way, j0)
      p[j0] = at(p, j1)
      j0 = j1
    } while (j0 !== 0)
  }
  const rowToCol = new Array<number>(n).fill(-1)
  for (let j = 1; j <= n; j++) {
    const row = at(p, j)
    if (row > 0) rowToCol[row - 1] = j - 1
  }
  return rowToCol
}

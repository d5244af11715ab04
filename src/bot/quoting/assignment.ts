/**
 * The assignment solver of the quote diff: Hungarian algorithm (Kuhn–Munkres with potentials), O(n³).
 * Pure and deterministic for a given matrix.
 */

/** For a square cost matrix, the column assigned to each row in a minimum-cost perfect assignment. */
export function minCostAssignment(cost: readonly (readonly number[])[]): number[] {
  // Hot loop: plain reads with a default that valid indices never take (no helper call, no boxing).
  const n = cost.length
  const u = new Array<number>(n + 1).fill(0)
  const v = new Array<number>(n + 1).fill(0)
  const p = new Array<number>(n + 1).fill(0) // p[j]: row assigned to column j (1-based; 0 = none)
  const way = new Array<number>(n + 1).fill(0)
  const none: readonly number[] = []
  for (let i = 1; i <= n; i++) {
    p[0] = i
    let j0 = 0
    const minv = new Array<number>(n + 1).fill(Number.POSITIVE_INFINITY)
    const used = new Array<boolean>(n + 1).fill(false)
    do {
      used[j0] = true
      const i0 = p[j0] ?? 0
      const row = cost[i0 - 1] ?? none
      const ui0 = u[i0] ?? 0
      let delta = Number.POSITIVE_INFINITY
      let j1 = 0
      for (let j = 1; j <= n; j++) {
        if (used[j]) continue
        const cur = (row[j - 1] ?? 0) - ui0 - (v[j] ?? 0)
        let mj = minv[j] ?? Number.POSITIVE_INFINITY
        if (cur < mj) {
          mj = cur
          minv[j] = cur
          way[j] = j0
        }
        if (mj < delta) {
          delta = mj
          j1 = j
        }
      }
      for (let j = 0; j <= n; j++) {
        if (used[j]) {
          const pj = p[j] ?? 0
          u[pj] = (u[pj] ?? 0) + delta
          v[j] = (v[j] ?? 0) - delta
        } else {
          minv[j] = (minv[j] ?? 0) - delta
        }
      }
      j0 = j1
    } while (p[j0] !== 0)
    do {
      const j1 = way[j0] ?? 0
      p[j0] = p[j1] ?? 0
      j0 = j1
    } while (j0 !== 0)
  }
  const rowToCol = new Array<number>(n).fill(-1)
  for (let j = 1; j <= n; j++) {
    const row = p[j] ?? 0
    if (row > 0) rowToCol[row - 1] = j - 1
  }
  return rowToCol
}

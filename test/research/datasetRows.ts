/** Test helper: the rows of one kind and instrument in a dataset folder, read through the dataset reader. */
import { ChunkCursor } from '../../src/research/dataset/cursor.ts'
import type { DataKind } from '../../src/research/dataset/format.ts'
import { DatasetStore } from '../../src/research/dataset/store.ts'

export function datasetRows(
  dir: string,
  symbol: string,
  from = 0,
  to = Number.MAX_SAFE_INTEGER,
): (kind: DataKind) => { t: number }[] {
  const store = DatasetStore.open(dir)
  return (kind) => {
    const c = new ChunkCursor(store, kind, symbol, from, to)
    const out: { t: number }[] = []
    for (
      let x = c.takeUntil(Number.MAX_SAFE_INTEGER);
      x !== undefined;
      x = c.takeUntil(Number.MAX_SAFE_INTEGER)
    )
      out.push(x)
    return out
  }
}

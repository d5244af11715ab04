/**
 * The benchmarks' dataset: `hours` of `n` generated instruments downloaded from the embedded mock into
 * a folder under the temp directory (kept between runs: a second call fetches nothing).
 */
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generateInstruments } from '../src/mock/perps/instruments.ts'
import { DatasetStore } from '../src/research/dataset/store.ts'
import { type DownloadProgress, download } from '../src/research/download/downloader.ts'
import { MockHistorySource } from '../src/research/download/mockSource.ts'

/** The benchmarks' first day of data (the simulate start day). */
export const BENCH_DAY0 = Date.UTC(2026, 0, 5)

export async function ensureBenchData(
  n: number,
  hours: number,
): Promise<{ dir: string; progress: DownloadProgress; wallS: number }> {
  const dir = join(tmpdir(), `perpbot-research-bench-${n}x${hours}`)
  const specs = generateInstruments(n, 1)
  const source = new MockHistorySource(specs, 1)
  const store = DatasetStore.openOrCreate(dir, source.name, source.klineIntervalMs)
  const t = performance.now()
  const progress = await download({
    source,
    store,
    plan: {
      symbols: specs.map((s) => s.symbol),
      kinds: ['klines', 'trades', 'funding'],
      from: BENCH_DAY0,
      to: BENCH_DAY0 + hours * 3_600_000,
    },
  })
  return { dir, progress, wallS: (performance.now() - t) / 1000 }
}

/**
 * History from the live venue: a thin mapping of `/v1/info/klines`, `/trades` and `/funding` onto
 * the reader interface. The perps client does not read these endpoints yet (they arrive with the
 * wire-contract work); until then this source says so instead of guessing at the wire.
 */
import type { DatasetInstrument } from '../dataset/format.ts'
import { DatasetError } from '../dataset/format.ts'
import type { HistoryKind, HistoryPage, HistorySource } from './source.ts'

export class LiveHistorySource implements HistorySource {
  readonly name: string
  readonly klineIntervalMs = 1_000

  constructor(baseUrl: string) {
    this.name = `live:${baseUrl}`
  }

  async instruments(): Promise<DatasetInstrument[]> {
    throw notYet()
  }

  async page<K extends HistoryKind>(
    _kind: K,
    _symbol: string,
    _from: number,
    _to: number,
  ): Promise<HistoryPage<K>> {
    throw notYet()
  }
}

function notYet(): DatasetError {
  return new DatasetError(
    'download --live is not available yet: the perps client does not read /v1/info/klines, /trades and /funding',
  )
}

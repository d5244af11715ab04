/**
 * `run --record DIR`: which recorder, started before the bot. With the bot's streams on, a tap on the
 * bot's own public sockets for what the bot receives (research/record/recordingTap.ts), and the
 * trades and books on the recorder process's own sockets, parsed and written there in the idle
 * scheduling class; with the bot's streams off, the recorder process on sockets of its own. A
 * recording that cannot start is logged as an error and the bot trades on: it serves research.
 */
import type { Clock } from '../clock.ts'
import { describeError } from '../errors.ts'
import type { Logger } from '../logging/logger.ts'
import type { RunningMock } from '../mock/server.ts'
import type { StreamTap } from '../perps/stream/frameTap.ts'
import type { DatasetInstrument } from '../research/dataset/format.ts'
import { instrumentOfSpec } from '../research/download/mockSource.ts'
import { clockImage, startRecorderProcess } from '../research/record/recorderProcess.ts'
import { startRecordingTap } from '../research/record/recordingTap.ts'
import { type StreamRecorder, startStreamRecorder } from '../research/record/streamRecorder.ts'
import type { RecordingResult } from '../research/record/streamRecording.ts'
import { venueInstruments } from '../research/record/venueInstruments.ts'

export interface RunRecording {
  /** For the bot (`streamTap`) when it records from the bot's own sockets. */
  readonly tap: StreamTap | undefined
  /** Stops the recording; resolves with what was written (undefined when it never started). */
  stop(): Promise<RecordingResult | undefined>
}

export function startRunRecording(o: {
  dir: string
  /** The stream's address (the embedded mock's or PERPS_WS_URL); without one nothing is recorded. */
  wsUrl: string | undefined
  /** The bot's streams are on (`streams.enabled`): record through its sockets. */
  botStreams: boolean
  mock: Pick<RunningMock, 'exchange' | 'clock'> | undefined
  mockSeed: number
  restUrl: string
  clock: Clock
  logger: Logger
}): RunRecording | undefined {
  const { logger, wsUrl } = o
  if (wsUrl === undefined) {
    logger.warn('--record needs a stream address (PERPS_WS_URL); not recording')
    return undefined
  }
  const mock = o.mock
  const instruments: Promise<DatasetInstrument[]> = mock
    ? Promise.resolve(mock.exchange.instrumentSpecs().map(instrumentOfSpec))
    : venueInstruments(o.restUrl)
  const options = {
    dir: o.dir,
    source: mock ? `record:mock:seed=${o.mockSeed}` : `record:${wsUrl}`,
    maxBytes: 1e9,
    flushMs: 60_000,
    onError: (m: string) => logger.warn(m),
  }
  const failed = (e: unknown): undefined => {
    logger.error({ err: describeError(e) }, `--record: not recording (${describeError(e)})`)
    return undefined
  }
  const image = clockImage(mock?.clock ?? o.clock)
  if (o.botStreams) {
    const tap = startRecordingTap({ ...options, instruments, sockets: { url: wsUrl, clock: image } })
    void tap.ready.then(
      (dir) => logger.info(`recording the public stream the bot receives (and trades, books) into ${dir}`),
      failed,
    )
    return { tap, stop: () => tap.stop() }
  }
  const recorder: Promise<StreamRecorder | undefined> = instruments
    .then((list) =>
      image.rate > 0
        ? startRecorderProcess({ ...options, instruments: list, url: wsUrl, clock: image })
        : startStreamRecorder({ ...options, instruments: list, url: wsUrl, clock: o.clock }),
    )
    .then((r) => {
      logger.info(`recording the public stream into ${r.dir} (sockets of its own: the bot's streams are off)`)
      return r
    }, failed)
  return {
    tap: undefined,
    stop: async () =>
      (await recorder)?.stop().catch((e: unknown) => {
        logger.warn(`--record: recording stop failed (${describeError(e)})`)
        return undefined
      }),
  }
}

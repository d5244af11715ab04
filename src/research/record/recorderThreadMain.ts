/** Inside the recorder thread: the in-process recorder, driven by the parent's messages. */
import { performance } from 'node:perf_hooks'
import { parentPort, workerData } from 'node:worker_threads'
import { z } from 'zod'
import { describeError } from '../../errors.ts'
import { datasetInstrumentSchema } from '../dataset/format.ts'
import type { RecorderMessage } from './recorderThread.ts'
import { type StreamRecorder, startStreamRecorder } from './streamRecorder.ts'

const Options = z.object({
  url: z.string(),
  dir: z.string(),
  source: z.string(),
  instruments: z.array(datasetInstrumentSchema),
  clock: z.object({ now: z.number(), wallAt: z.number(), rate: z.number().positive() }),
  maxBytes: z.number().positive(),
  flushMs: z.number().positive(),
  bookDepth: z.number().int().positive().optional(),
  bookEveryMs: z.number().nonnegative().optional(),
})

export function runRecorderThread(): void {
  const port = parentPort
  if (port === null) throw new Error('runRecorderThread runs on a worker thread')
  const post = (m: RecorderMessage): void => port.postMessage(m)
  let recorder: StreamRecorder
  try {
    const o = Options.parse(workerData)
    const { now, wallAt, rate } = o.clock
    recorder = startStreamRecorder({
      ...o,
      clock: { now: () => now + (performance.timeOrigin + performance.now() - wallAt) * rate },
      onFlush: (pushes, rows) => post({ type: 'flushed', pushes, rows }),
      onError: (message) => post({ type: 'error', message }),
    })
  } catch (e) {
    post({ type: 'error', message: describeError(e) })
    return
  }
  post({ type: 'started', dir: recorder.dir })
  port.on('message', (m: unknown) => {
    if (typeof m !== 'object' || m === null || !('type' in m) || m.type !== 'stop') return
    recorder.stop().then(
      (result) => post({ type: 'stopped', result }),
      (e: unknown) => post({ type: 'error', message: `recording stop failed: ${describeError(e)}` }),
    )
  })
}

/** Inside the recorder process: the in-process recorder, driven by the parent's messages. */
import { performance } from 'node:perf_hooks'
import { z } from 'zod'
import { describeError } from '../../errors.ts'
import { datasetInstrumentSchema } from '../dataset/format.ts'
import type { RecorderMessage } from './recorderProcess.ts'
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

const Start = z.object({ type: z.literal('start'), options: Options })

export function runRecorderProcess(): void {
  const send = process.send?.bind(process)
  if (send === undefined) throw new Error('runRecorderProcess runs in a child with an IPC channel')
  const post = (m: RecorderMessage): void => {
    if (process.connected) send(m)
  }
  let recorder: StreamRecorder | undefined
  let stopping: Promise<void> | undefined
  const stop = (): Promise<void> => {
    stopping ??= (recorder?.stop() ?? Promise.resolve(undefined)).then(
      (result) => {
        if (result !== undefined) post({ type: 'stopped', result })
      },
      (e: unknown) => post({ type: 'error', message: `recording stop failed: ${describeError(e)}` }),
    )
    return stopping
  }
  process.on('message', (m: unknown) => {
    const start = Start.safeParse(m)
    if (start.success && recorder === undefined) {
      try {
        const o = start.data.options
        const { now, wallAt, rate } = o.clock
        recorder = startStreamRecorder({
          ...o,
          clock: { now: () => now + (performance.timeOrigin + performance.now() - wallAt) * rate },
          onFlush: (pushes, rows) => post({ type: 'flushed', pushes, rows }),
          onError: (message) => post({ type: 'error', message }),
        })
        post({ type: 'started', dir: recorder.dir })
      } catch (e) {
        post({ type: 'error', message: describeError(e) })
        process.exitCode = 2
        process.disconnect()
      }
      return
    }
    if (typeof m === 'object' && m !== null && 'type' in m && m.type === 'stop') void stop()
  })
  // The parent stopped or died: write what is held, then end.
  process.on('disconnect', () => {
    void stop().then(() => process.exit(process.exitCode ?? 0))
  })
}

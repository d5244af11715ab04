/**
 * Profiles of a bench's measured window only (not its start or warm-up), through the inspector: a
 * CPU profile and V8's sampling heap profile with the objects later collected kept, so the heap
 * profile counts what the window allocated (the allocation rate), not what it retained. Written as
 * `.cpuprofile` / `.heapprofile` into `dir` (Chrome DevTools opens both). Bench-only.
 */
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { join } from 'node:path'

export interface WindowProfile {
  /** Stops both profilers and writes the files; resolves to their paths. */
  stop(): Promise<string[]>
}

export async function startWindowProfile(dir: string, name: string): Promise<WindowProfile> {
  const session = new Session()
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.setSamplingInterval', {
    interval: Number(process.env.TICK_TO_TRADE_PROFILE_US ?? 500),
  })
  await session.post('HeapProfiler.enable')
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 4096,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  })
  await session.post('Profiler.start')
  return {
    async stop() {
      const { profile: cpu } = await session.post('Profiler.stop')
      const { profile: heap } = await session.post('HeapProfiler.stopSampling')
      session.disconnect()
      const cpuPath = join(dir, `${name}.cpuprofile`)
      const heapPath = join(dir, `${name}.heapprofile`)
      writeFileSync(cpuPath, JSON.stringify(cpu))
      writeFileSync(heapPath, JSON.stringify(heap))
      return [cpuPath, heapPath]
    },
  }
}

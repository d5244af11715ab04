/** What the process says about its runtime before it starts: Node's end of life, the heap policy. */
import type { Logger } from '../../logging/logger.ts'
import type { Settings } from '../../settings/schema.ts'
import { applyHeapPolicy } from '../heapPolicy.ts'
import { nodeEndOfLifeWarning } from '../nodeSupport.ts'

export function noteRuntime(logger: Logger, settings: Settings): void {
  const eol = nodeEndOfLifeWarning(process.version, Date.now())
  if (eol !== undefined) logger.warn({ node: process.version }, eol)
  const heap = applyHeapPolicy(settings.ops.heapGrowthPercent)
  logger.info(
    heap,
    heap.growthPercent === undefined
      ? 'heap: V8 default growth policy'
      : `heap: full collection once the heap grows ${heap.growthPercent}% past the live data (${heap.source})`,
  )
}

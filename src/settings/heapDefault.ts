/**
 * The default of `ops.heapGrowthPercent`: rss under 300 MB at 1,000 instruments (docs/benchmarks.md).
 * Its own module so the process's first import (cli/startHeap.ts) reads it without the settings schema.
 */
export const DEFAULT_HEAP_GROWTH_PERCENT = 25

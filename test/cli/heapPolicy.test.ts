import { describe, expect, it } from 'vitest'
import { applyHeapPolicy } from '../../src/cli/heapPolicy.ts'

describe('heap policy', () => {
  it('applies the configured growth', () => {
    expect(applyHeapPolicy(25, [])).toEqual({ growthPercent: 25, source: 'settings' })
  })

  it("keeps V8's own policy at 0", () => {
    expect(applyHeapPolicy(0, [])).toEqual({ growthPercent: undefined, source: 'v8 default' })
  })

  it('leaves a --heap-growing-percent given to node in force', () => {
    expect(applyHeapPolicy(25, ['--import', 'tsx', '--heap-growing-percent=60'])).toEqual({
      growthPercent: 60,
      source: 'node flag',
    })
  })
})

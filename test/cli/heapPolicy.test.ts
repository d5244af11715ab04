import { describe, expect, it } from 'vitest'
import { applyHeapPolicy } from '../../src/cli/heapPolicy.ts'
import { applyStartHeapPolicy, isPerpbotProcess } from '../../src/cli/startHeap.ts'

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

describe("run's heap policy from the first import", () => {
  it('applies the default for `run` in perpbot’s own process only', () => {
    expect(applyStartHeapPolicy(['run', '--live'], true)).toBe(true)
    expect(applyStartHeapPolicy(['simulate', '--hours', '1'], true)).toBe(false)
    // vitest's own `run` argument in a test worker is not perpbot's command.
    expect(applyStartHeapPolicy(['run', 'test/cli'], false)).toBe(false)
  })

  it('knows perpbot’s process: the launcher’s mark, or main.js / main.ts as the entry', () => {
    expect(isPerpbotProcess('/app/bin/perpbot.js', { PERPBOT_BIN: '1' })).toBe(true)
    expect(isPerpbotProcess('/app/src/cli/main.js', {})).toBe(true)
    expect(isPerpbotProcess('C:\\perpbot\\src\\cli\\main.ts', {})).toBe(true)
    expect(isPerpbotProcess('/repo/node_modules/vitest/vitest.mjs', {})).toBe(false)
    expect(isPerpbotProcess(undefined, {})).toBe(false)
  })
})

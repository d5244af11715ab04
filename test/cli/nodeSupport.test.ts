import { describe, expect, it } from 'vitest'
import { nodeEndOfLifeWarning } from '../../src/cli/nodeSupport.ts'

describe('the Node end-of-life warning', () => {
  const at = (iso: string): number => Date.parse(iso)

  it('warns on Node 20 from its end of life (2026-04-30), not before', () => {
    expect(nodeEndOfLifeWarning('v20.20.2', at('2026-04-29T23:59:59Z'))).toBeUndefined()
    const w = nodeEndOfLifeWarning('v20.20.2', at('2026-12-06T00:00:00Z'))
    expect(w).toMatch(/Node v20\.20\.2 is past its end of life \(2026-04-30\)/)
    expect(w).toMatch(/Node 24 LTS/)
  })

  it('does not warn on Node 24 LTS, nor on a line it does not know', () => {
    expect(nodeEndOfLifeWarning('v24.21.0', at('2026-12-06T00:00:00Z'))).toBeUndefined()
    expect(nodeEndOfLifeWarning('v30.0.0', at('2026-12-06T00:00:00Z'))).toBeUndefined()
    expect(nodeEndOfLifeWarning('garbage', at('2026-12-06T00:00:00Z'))).toBeUndefined()
  })
})

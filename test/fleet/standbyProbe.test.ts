import { describe, expect, it } from 'vitest'
import { startStandbyProbe } from '../../src/fleet/standbyProbe.ts'

describe('standby probe', () => {
  it('alive while standing by, not ready; the port is free again after close', async () => {
    const p = await startStandbyProbe('127.0.0.1', 0)
    const base = `http://127.0.0.1:${p.port}`
    expect((await fetch(`${base}/livez`)).status).toBe(200)
    const ready = await fetch(`${base}/readyz`)
    expect(ready.status).toBe(503)
    expect(await ready.text()).toMatch(/standby/)
    await p.close()
    const again = await startStandbyProbe('127.0.0.1', p.port)
    await again.close()
  })
})

/**
 * The fast engine turns V8's allocation-site pretenuring off while it runs (pretenuring.ts): off on
 * entering, back on when the last overlapping run ends, however it ends; a flag given to node wins.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { deferred } from '../helpers/deferred.ts'

const flags = vi.hoisted(() => ({ set: [] as string[] }))
vi.mock('node:v8', async (original) => ({
  ...(await original<typeof import('node:v8')>()),
  setFlagsFromString: (f: string) => {
    flags.set.push(f)
  },
}))

const { withoutPretenuring } = await import('../../src/research/backtest/pretenuring.ts')

describe('withoutPretenuring', () => {
  beforeEach(() => {
    flags.set.length = 0
  })

  it('turns pretenuring off for the run and back on after it, with its result', async () => {
    await expect(withoutPretenuring(async () => 'done', [])).resolves.toBe('done')
    expect(flags.set).toEqual(['--no-allocation-site-pretenuring', '--allocation-site-pretenuring'])
  })

  it('restores it when the run fails', async () => {
    await expect(
      withoutPretenuring(async () => {
        throw new Error('bad data')
      }, []),
    ).rejects.toThrow('bad data')
    expect(flags.set).toEqual(['--no-allocation-site-pretenuring', '--allocation-site-pretenuring'])
  })

  it('keeps it off until the last of overlapping runs ends', async () => {
    const a = deferred<string>()
    const b = deferred<string>()
    const first = withoutPretenuring(() => a.promise, [])
    const second = withoutPretenuring(() => b.promise, [])
    a.resolve('a')
    await first
    expect(flags.set).toEqual(['--no-allocation-site-pretenuring'])
    b.resolve('b')
    await second
    expect(flags.set).toEqual(['--no-allocation-site-pretenuring', '--allocation-site-pretenuring'])
  })

  it('leaves a pretenuring flag given to node alone', async () => {
    await withoutPretenuring(async () => 'x', ['--allocation-site-pretenuring'])
    await withoutPretenuring(async () => 'y', ['--no-allocation-site-pretenuring'])
    expect(flags.set).toEqual([])
  })
})

/**
 * The fast engine turns V8's allocation-site pretenuring off while it runs (pretenuring.ts): off on
 * entering, back on when the last overlapping run ends, however it ends; a flag given to node wins.
 */
import { beforeEach, describe, expect, it } from 'vitest'
import { type PretenuringHost, withoutPretenuring } from '../../src/research/backtest/pretenuring.ts'
import { deferred } from '../helpers/deferred.ts'

const flags = { set: [] as string[] }
const host = (execArgv: readonly string[] = []): PretenuringHost => ({
  execArgv,
  setFlags: (f) => {
    flags.set.push(f)
  },
})

describe('withoutPretenuring', () => {
  beforeEach(() => {
    flags.set.length = 0
  })

  it('turns pretenuring off for the run and back on after it, with its result', async () => {
    await expect(withoutPretenuring(async () => 'done', host())).resolves.toBe('done')
    expect(flags.set).toEqual(['--no-allocation-site-pretenuring', '--allocation-site-pretenuring'])
  })

  it('restores it when the run fails', async () => {
    await expect(
      withoutPretenuring(async () => {
        throw new Error('bad data')
      }, host()),
    ).rejects.toThrow('bad data')
    expect(flags.set).toEqual(['--no-allocation-site-pretenuring', '--allocation-site-pretenuring'])
  })

  it('keeps it off until the last of overlapping runs ends', async () => {
    const a = deferred<string>()
    const b = deferred<string>()
    const first = withoutPretenuring(() => a.promise, host())
    const second = withoutPretenuring(() => b.promise, host())
    a.resolve('a')
    await first
    expect(flags.set).toEqual(['--no-allocation-site-pretenuring'])
    b.resolve('b')
    await second
    expect(flags.set).toEqual(['--no-allocation-site-pretenuring', '--allocation-site-pretenuring'])
  })

  it('leaves a pretenuring flag given to node alone', async () => {
    await withoutPretenuring(async () => 'x', host(['--allocation-site-pretenuring']))
    await withoutPretenuring(async () => 'y', host(['--no-allocation-site-pretenuring']))
    expect(flags.set).toEqual([])
  })
})

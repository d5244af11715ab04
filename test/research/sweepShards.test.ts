/**
 * A sweep split as the Kubernetes Indexed Job splits it (deploy/kubernetes/sweep/sweep-job.yaml),
 * run here by setting the index: each shard writes its part, `--merge` joins them into the same CSV
 * a single run writes; a missing or foreign part is refused. The manifest matches the split.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { perpbot } from '../cli/perpbotCli.ts'
import { arr, at, obj, readYaml, str } from '../deploy/manifests.ts'

const root = mkdtempSync(join(tmpdir(), 'perpbot-shards-'))
const data = join(root, 'data')
afterAll(() => rmSync(root, { recursive: true, force: true }))

beforeAll(async () => {
  const r = await perpbot([
    'download',
    '--out',
    data,
    '--instruments',
    'BTC-USDC',
    '--from',
    '2026-11-30T00:00:00Z',
    '--to',
    '2026-11-30T00:10:00Z',
    '--mock-instruments',
    '1',
  ])
  expect(r.code).toBe(0)
}, 60_000)

const grid = ['--grid', 'halfSpreadBps=2,5,9', '--grid', 'skewBps=0,10']
const sweep = (out: string, extra: string[], env: Record<string, string> = {}) =>
  perpbot(['sweep', '--data', data, '--workers', '0', '--out', out, ...grid, ...extra], env)

describe('a sharded sweep', { timeout: 120_000 }, () => {
  it('three shards by index (flag or JOB_COMPLETION_INDEX) merge into the single run’s CSV', async () => {
    const whole = join(root, 'whole')
    expect((await sweep(whole, [])).code).toBe(0)
    const parts = join(root, 'parts')
    const a = await sweep(parts, ['--shards', '3', '--shard-index', '0'])
    expect(a.code).toBe(0)
    expect(a.out).toContain('swept shard 0 of 3 (2 of 6 point(s))')
    expect((await sweep(parts, ['--shards', '3'], { JOB_COMPLETION_INDEX: '1' })).code).toBe(0)
    // Before the last shard: the merge names what is missing.
    const early = await perpbot(['sweep', '--merge', parts])
    expect(early.code).toBe(1)
    expect(early.err).toContain('missing: 2')
    expect((await sweep(parts, ['--shards', '3'], { JOB_COMPLETION_INDEX: '2' })).code).toBe(0)
    const merged = await perpbot(['sweep', '--merge', parts])
    expect(merged.code).toBe(0)
    expect(merged.out).toContain('merged from 3 shard(s)')
    expect(readFileSync(join(parts, 'sweep.csv'), 'utf8')).toBe(
      readFileSync(join(whole, 'sweep.csv'), 'utf8'),
    )
    // A part of another sweep is refused.
    const other = join(root, 'other')
    await sweep(other, ['--shards', '3', '--shard-index', '0', '--objective', 'sharpe'])
    writeFileSync(join(parts, 'part-0-of-3.json'), readFileSync(join(other, 'part-0-of-3.json')))
    const mixed = await perpbot(['sweep', '--merge', parts])
    expect(mixed.code).toBe(1)
    expect(mixed.err).toContain('belongs to another sweep')
  })

  it.each([
    [['--shards', '3'], "needs this shard's index from 0 to 2"],
    [['--shards', '3', '--shard-index', '3'], "got '3'"],
    [
      ['--shards', '2', '--shard-index', '0', '--search', 'tpe', '--range', 'halfSpreadBps=2:9'],
      'tpe learns',
    ],
  ])('%j exits 2', async (extra, message) => {
    const args = extra.includes('tpe') ? extra : [...grid, ...extra]
    const r = await perpbot(['sweep', '--data', data, '--workers', '0', '--out', join(root, 'x'), ...args])
    expect(r.code).toBe(2)
    expect(r.err).toContain(message)
  })
})

describe('the Indexed Job manifest', () => {
  const job = obj(readYaml('kubernetes/sweep/sweep-job.yaml'))
  const container = obj(arr(job, 'spec', 'template', 'spec', 'containers')[0])
  const args = arr(container, 'args').map(String)
  it('is indexed, one completion per shard, the dataset read-only and parts on a shared volume', () => {
    expect(str(job, 'kind')).toBe('Job')
    expect(str(job, 'spec', 'completionMode')).toBe('Indexed')
    expect(Number(at(job, 'spec', 'completions'))).toBe(Number(args[args.indexOf('--shards') + 1]))
    expect(args[args.indexOf('--data') + 1]).toBe('/data')
    expect(args[args.indexOf('--out') + 1]).toBe('/out')
    const mounts = arr(container, 'volumeMounts').map((m) => obj(m))
    expect(mounts.find((m) => m.mountPath === '/data')?.readOnly).toBe(true)
    expect(mounts.some((m) => m.mountPath === '/out')).toBe(true)
    expect(str(job, 'spec', 'template', 'spec', 'restartPolicy')).toBe('Never')
    expect(obj(container, 'securityContext').readOnlyRootFilesystem).toBe(true)
  })
})

/** Two runs' figures side by side (`simulate --json`, `perpbot compare`). */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { perpbot } from '../../cli/perpbotCli.ts'

const dir = mkdtempSync(join(tmpdir(), 'perpbot-compare-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('perpbot compare', { timeout: 120_000 }, () => {
  it('renders two simulate runs side by side with B − A, green only where B is better', async () => {
    const run = (name: string, spread: string) =>
      perpbot([
        'simulate',
        '--instruments',
        '1',
        '--hours',
        '0.05',
        '--out',
        join(dir, `${name}.html`),
        '--json',
        join(dir, `${name}.json`),
        '--set',
        `instruments=[{"symbol":"BTC-USDC","strategy":"index-peg","params":{"size":"0.001","positionCap":"0.01","halfSpreadBps":${spread}}}]`,
      ])
    expect(await run('a', '2')).toMatchObject({ code: 0 })
    expect(await run('b', '20')).toMatchObject({ code: 0 })
    const a = JSON.parse(readFileSync(join(dir, 'a.json'), 'utf8'))
    expect(a.format).toBe('perpbot-run-summary/1')
    expect(a.figures.fills).toBeGreaterThan(0)
    const r = await perpbot([
      'compare',
      join(dir, 'a.json'),
      join(dir, 'b.json'),
      '--out',
      join(dir, 'c.html'),
    ])
    expect(r.code).toBe(0)
    const html = readFileSync(join(dir, 'c.html'), 'utf8')
    expect(html).toContain('<th>B − A</th>')
    expect(html).toContain('Markout at 60 s')
    expect(html).toMatch(/Net PnL<\/td><td>[^<]+USDC<\/td>/)
  })

  it('refuses what is not a run summary (exit 2)', async () => {
    writeFileSync(join(dir, 'x.json'), '{"format":"other"}')
    const r = await perpbot(['compare', join(dir, 'x.json'), join(dir, 'x.json')])
    expect(r.code).toBe(2)
    expect(r.err).toContain('is not a perpbot-run-summary/1 file')
    expect((await perpbot(['compare', join(dir, 'x.json')])).code).toBe(2)
  })
})

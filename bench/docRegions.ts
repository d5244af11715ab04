/**
 * Regenerated regions of the docs: a script owns the text between `<!-- NAME:begin -->` and
 * `<!-- NAME:end -->` and replaces it on every run, so reruns update the figures in place. A file
 * without the markers gets the region appended at the end.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, release, totalmem } from 'node:os'

/** `doc` with the region `name` set to `body` (markers added at the end when missing). */
export function replaceRegion(doc: string, name: string, body: string): string {
  const begin = `<!-- ${name}:begin -->`
  const end = `<!-- ${name}:end -->`
  const region = `${begin}\n${body.trim()}\n${end}`
  const i = doc.indexOf(begin)
  const j = doc.indexOf(end)
  if (i >= 0 && j > i) return doc.slice(0, i) + region + doc.slice(j + end.length)
  return `${doc.replace(/\n*$/, '')}\n\n${region}\n`
}

/** Rewrites the region `name` of the file at `path`. */
export function writeRegion(path: string, name: string, body: string): void {
  writeFileSync(path, replaceRegion(readFileSync(path, 'utf8'), name, body))
}

/** `2026-11-23 13:20 UTC` */
export function utcStamp(d: Date = new Date()): string {
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`
}

/** One PASS/FAIL check of the soak or the chaos run, with the figure behind it. */
export interface Check {
  name: string
  pass: boolean
  figure: string
}

/** Prints each check and the verdict; returns the failed ones. */
export function printChecks(checks: readonly Check[]): Check[] {
  console.log('')
  for (const c of checks) console.log(`${c.pass ? 'PASS' : 'FAIL'}  ${c.name}: ${c.figure}`)
  const failed = checks.filter((c) => !c.pass)
  console.log(failed.length === 0 ? '\nOK: every check passed' : `\nFAILED: ${failed.length} check(s)`)
  return failed
}

/** The checks as a markdown table for the docs. */
export function checksTable(checks: readonly Check[]): string {
  return [
    '| check | result | figure |',
    '|---|---|---|',
    ...checks.map(
      (c) => `| ${c.name} | ${c.pass ? 'PASS' : '**FAIL**'} | ${c.figure.replaceAll('|', '/')} |`,
    ),
  ].join('\n')
}

/** The machine a run measured on: CPU model and count, memory, Node, kernel. */
export function machineLine(): string {
  const cpu = cpus()
  const model = (cpu[0]?.model ?? 'unknown CPU').replace(/\s+/g, ' ').trim()
  return `${cpu.length} × ${model}, ${Math.round(totalmem() / 2 ** 30)} GB, Linux ${release()}, Node ${process.version}`
}

/** The 1-minute load average now (other processes on a shared machine move every figure). */
export const loadNow = (): number => loadavg()[0] ?? 0

/** `load average 1.2 → 3.4` over a run that started at `from`. */
export const loadSpan = (from: number): string => `load average ${from.toFixed(1)} → ${loadNow().toFixed(1)}`

/**
 * What the tick-to-trade bench's slow moves waited behind, from its profiles: each move over the
 * target cut at its four points (the move made at the venue, the bot's read of its push, the request
 * made, written, arrived), and for each segment the functions that held the bot's thread and the
 * mock's (self time in that segment, from each process's CPU profile; idle when neither ran).
 *
 *   TICK_TO_TRADE_PROFILE=<dir> TICK_TO_TRADE_PROFILE_US=250 \
 *   TICK_TO_TRADE_MOCK_FLAGS="--cpu-prof --cpu-prof-dir=<dir>/mock" \
 *     node --expose-gc --import tsx bench/tickToTrade.bench.ts --transport stream --instruments 1000 ...
 *   node --import tsx bench/slowMoves.ts <dir> [--over 5] [--top 4]
 *
 * Both profiles' timestamps are the monotonic clock (the same in both processes); the moves file
 * carries the offset to wall time. Bench-only; reads files, writes nothing.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { numberFlag, pausedMs } from './stats.ts'

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[]
  startTime: number
  samples: number[]
  timeDeltas: number[]
}
interface MoveRow {
  iid: number
  at: number
  ms: number
  readWait?: number
  read?: number
  made?: number
  written?: number
}
interface MovesFile {
  monotonicToWallMs: number
  moves: MoveRow[]
  gcPauses: [number, number][]
  /** The mock's own collections (its own process only). */
  venueGcPauses?: [number, number][]
}

/** A profile as sample times (wall ms) and each sample's frame name. */
interface Samples {
  at: Float64Array
  name: string[]
}

function samplesOf(path: string, toWall: number): Samples {
  const p: CpuProfile = JSON.parse(readFileSync(path, 'utf8'))
  const names = new Map<number, string>()
  for (const n of p.nodes) {
    const file = n.callFrame.url.split('/').slice(-1)[0] ?? ''
    names.set(n.id, `${n.callFrame.functionName || '(anon)'} ${file}:${n.callFrame.lineNumber + 1}`)
  }
  const at = new Float64Array(p.samples.length)
  const name: string[] = []
  let t = p.startTime
  for (let i = 0; i < p.samples.length; i++) {
    t += p.timeDeltas[i] ?? 0
    at[i] = t / 1000 + toWall
    name.push(names.get(p.samples[i] ?? -1) ?? '?')
  }
  return { at, name }
}

/** A gap between two samples longer than this (ms) is the sampler not running, not the frame's time. */
const SAMPLER_GAP_MS = 1

/**
 * Self time (ms) by frame in [from, to), largest first; '(idle)' and '(program)' kept as V8 names
 * them. Of a gap between samples longer than SAMPLER_GAP_MS only its last SAMPLER_GAP_MS counts to the
 * frame sampled after it; the rest is '(no samples)': the profiler's thread did not run (both vCPUs
 * busy, or the VM paused), so what ran then is not known.
 */
function selfTime(s: Samples, from: number, to: number): [string, number][] {
  const by = new Map<string, number>()
  const add = (n: string, a: number, b: number): void => {
    const overlap = Math.min(b, to) - Math.max(a, from)
    if (overlap > 0) by.set(n, (by.get(n) ?? 0) + overlap)
  }
  for (let i = 1; i < s.at.length; i++) {
    const a = s.at[i - 1] ?? 0
    const b = s.at[i] ?? 0
    if (b <= from || a >= to) continue
    const split = Math.max(a, b - SAMPLER_GAP_MS)
    add('(no samples)', a, split)
    add(s.name[i] ?? '?', split, b)
  }
  return [...by.entries()].sort((x, y) => y[1] - x[1])
}

const dir = process.argv[2]
if (dir === undefined || dir.startsWith('--')) {
  console.error('usage: node --import tsx bench/slowMoves.ts <profile dir> [--over 5] [--top 4]')
  process.exit(2)
}
const OVER = numberFlag('over', 5)
const TOP = numberFlag('top', 4)
const files = readdirSync(dir)
const movesName = files.find((f) => f.endsWith('-moves.json'))
const botName = files.find((f) => f.startsWith('ttt-') && f.endsWith('.cpuprofile'))
if (movesName === undefined || botName === undefined) {
  console.error(
    `${dir}: no ttt-*-moves.json or ttt-*.cpuprofile (run the bench with TICK_TO_TRADE_PROFILE=${dir})`,
  )
  process.exit(2)
}
const moves: MovesFile = JSON.parse(readFileSync(join(dir, movesName), 'utf8'))
const bot = samplesOf(join(dir, botName), moves.monotonicToWallMs)
const mockDir = join(dir, 'mock')
const mockName = existsSync(mockDir) ? readdirSync(mockDir).find((f) => f.endsWith('.cpuprofile')) : undefined
const mock = mockName === undefined ? undefined : samplesOf(join(mockDir, mockName), moves.monotonicToWallMs)

const top = (s: Samples | undefined, from: number, to: number): string =>
  s === undefined
    ? '-'
    : selfTime(s, from, to)
        .slice(0, TOP)
        .map(([n, ms]) => `${n} ${ms.toFixed(2)}`)
        .join(' | ')

const slow = moves.moves.filter((m) => m.ms > OVER).sort((a, b) => b.ms - a.ms)
console.log(
  `${slow.length} of ${moves.moves.length} moves over ${OVER} ms (bot profile ${botName}${mockName ? `, mock ${mockName}` : ', no mock profile'})`,
)
for (const m of slow) {
  const arrived = m.at + m.ms
  const points: [string, number | undefined][] = [
    ['wait', m.read],
    ['path', m.made],
    ['undici', m.written],
    ['wire', arrived],
  ]
  const gc = pausedMs(moves.gcPauses, m.at, arrived)
  const venueGc = pausedMs(moves.venueGcPauses ?? [], m.at, arrived)
  console.log(
    `\nmove iid ${m.iid}: ${m.ms.toFixed(2)} ms${gc > 0 ? ` (${gc.toFixed(2)} ms in the bot's GC)` : ''}${venueGc > 0 ? ` (${venueGc.toFixed(2)} ms in the venue's GC)` : ''}`,
  )
  let from = m.at
  for (const [label, to] of points) {
    if (to === undefined) {
      console.log(`  ${label}: unknown`)
      continue
    }
    console.log(`  ${label} ${(to - from).toFixed(2)} ms`)
    console.log(`    bot:  ${top(bot, from, to)}`)
    console.log(`    mock: ${top(mock, from, to)}`)
    from = to
  }
}

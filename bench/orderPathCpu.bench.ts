/**
 * The bot's CPU on its order path, per move, in process (issue 36 point 4): from an instrument's INDEX
 * routed to its actor to the signed modifyOrders batch handed to the transport, read with
 * `process.cpuUsage()` at both ends (bench/inProcessBot.ts: the bot's actors, batcher, request gate,
 * perps client and signer; an undici MockAgent answers). One instrument moves at a time (round robin,
 * 0.5 % each, so both quotes reprice) and the next move waits until the answer is applied, so nothing
 * else runs inside a move's window: the figure is CPU time, not wall time, and does not depend on the
 * machine's load beyond its cache and frequency noise. The stream read before the actor and the
 * socket write after the hand-off are not in it (bench/tickRead.bench.ts has the read).
 *
 *   node --import tsx bench/orderPathCpu.bench.ts [--instruments 1000] [--moves 3000] [--warmup 2000] [--tree DIR]...
 *
 * `--tree DIR` (repeatable; e.g. `git archive main | tar -x -C .scratch/base`, its node_modules linked,
 * this file and bench/inProcessBot.ts copied in) builds the same bot from another checkout in this
 * process, and the trees take turns move by move, each going first in turn: the load hits them alike
 * (separate runs at load 4-5 spread ±10 %, more than a cut's gain).
 *
 * `--windows FILE` writes each measured move's window (CLOCK_MONOTONIC ms, a CPU profile's time base) so
 * a `--cpu-prof` of the run can be cut to the moves.
 *
 * Prints each tree's CPU per move (p50, p90, mean, in µs) and a `BENCH_RESULT` line.
 */
import { existsSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { createInProcessBot as CreateInProcessBot } from './inProcessBot.ts'
import { distribution, emitResult, numberFlag } from './stats.ts'

const N = numberFlag('instruments', 1000)
const MOVES = numberFlag('moves', 3000)
const WARMUP = numberFlag('warmup', 2000)
const argv = process.argv.slice(2)
const here = resolve('.')
const trees = [here, ...argv.flatMap((a, i) => (a === '--tree' ? [resolve(argv[i + 1] ?? '.')] : []))]

const cpuUs = (): number => {
  const u = process.cpuUsage()
  return u.user + u.system
}

/** CLOCK_MONOTONIC in ms, the base of a CPU profile's timestamps. */
const monotonicMs = (): number => Number(process.hrtime.bigint()) / 1e6
/** Each measured move's window, for `--windows FILE` (the shape /work-style path summarizers read). */
const windows: { at: number; readWait: number; ms: number }[] = []
const windowsFile = argv.flatMap((a, i) => (a === '--windows' ? [argv[i + 1] ?? ''] : []))[0]

interface Rig {
  tree: string
  /** Moves the next instrument and resolves with the CPU µs from the move to the hand-off. */
  move(): Promise<number>
  stop(): Promise<void>
}

async function rig(tree: string): Promise<Rig> {
  const file = `${tree}/bench/inProcessBot.ts`
  if (!existsSync(file)) throw new Error(`${file} is missing (copy this tree's bench/inProcessBot.ts there)`)
  const mod: { createInProcessBot: typeof CreateInProcessBot } = await import(pathToFileURL(file).href)
  let handedAt: number | undefined
  let handed: () => void = () => undefined
  const bot = await mod.createInProcessBot({
    instruments: N,
    limiter: 'large',
    onHandoff: () => {
      if (handedAt !== undefined) return
      handedAt = cpuUs()
      handed()
    },
  })
  await bot.feedInitial()
  let k = 0
  return {
    tree,
    async move() {
      const i = bot.instruments[k % N]
      if (i === undefined) throw new Error('no instrument')
      k += 1
      // Keep the account and statistics inputs fresh (they go stale after a while).
      if (k % 500 === 0) bot.refreshSlowInputs()
      handedAt = undefined
      // The bench's own idle check (a scan of every actor) must not run inside the window: the
      // move waits for the hand-off itself, then for the answer.
      const handoff = new Promise<void>((resolve, reject) => {
        handed = resolve
        setTimeout(() => reject(new Error(`${tree}: move ${k} (${i.symbol}) sent nothing`)), 10_000).unref()
      })
      const t0 = cpuUs()
      const w0 = monotonicMs()
      bot.moveIndex(i)
      await handoff
      const used = (handedAt ?? Number.NaN) - t0
      if (k > WARMUP) windows.push({ at: w0, readWait: 0, ms: monotonicMs() - w0 })
      await bot.waitIdle()
      return used
    },
    async stop() {
      bot.takeHandoffs()
      await bot.stop()
    },
  }
}

const rigs: Rig[] = []
for (const tree of trees) rigs.push(await rig(tree))
const perMove: number[][] = rigs.map(() => [])
for (let m = 0; m < WARMUP + MOVES; m++) {
  // Each tree goes first in turn.
  for (let j = 0; j < rigs.length; j++) {
    const i = (m + j) % rigs.length
    const used = (await rigs[i]?.move()) ?? 0
    if (m >= WARMUP) perMove[i]?.push(used)
  }
}
const results = []
for (const [i, r] of rigs.entries()) {
  await r.stop()
  const c = perMove[i] ?? []
  const d = distribution(c)
  const mean = c.reduce((a, b) => a + b, 0) / c.length
  const name = r.tree === here ? 'this tree' : r.tree
  console.log(
    `order path CPU per move (${name}), ${N} instruments, ${MOVES} moves (after ${WARMUP}): p50 ${d.p50.toFixed(0)} µs, p90 ${d.p90.toFixed(0)} µs, mean ${mean.toFixed(0)} µs`,
  )
  results.push({ tree: name, p50Us: d.p50, p90Us: d.p90, meanUs: mean })
}
if (windowsFile !== undefined)
  writeFileSync(windowsFile, JSON.stringify({ monotonicToWallMs: 0, moves: windows }))
emitResult({ bench: 'order-path-cpu', instruments: N, moves: MOVES, trees: results })

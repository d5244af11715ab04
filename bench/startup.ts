/**
 * Start-up (issue 36): how long a user waits, the compiled build (dist/, what `npm start`,
 * `bin/perpbot.js` and the image run) beside the TypeScript sources through tsx (what they ran
 * before), in the same run, alternating, one after another.
 *
 *   npm run start:bench -- [--runs 3] [--baseline-rev d854e41] [--no-write]
 *
 * - `perpbot --version`: wall time from spawn to exit, and the child's CPU time (user + system, every
 *   thread; from this process's accounting of waited-for children).
 * - From the start command to the first order batch: `perpbot run` (a dry run against the embedded
 *   mock: default config, a temporary state dir, the ops server on a free port), wall time until the
 *   bot's `/metrics` first counts a settled batch (`perpbot_batches_total`, polled every 20 ms: the
 *   batch was sent a loopback round trip earlier), and the CPU the process tree had used by then
 *   (/proc). Rows: `npm start` (the compiled build through npm, as a user types it), `node
 *   bin/perpbot.js run` (compiled, without npm), `node --import tsx src/cli/main.ts run` (the sources
 *   through tsx: `npm start` before this change, without npm).
 *
 * The "before" rows run the tree of `--baseline-rev` (default `d854e41`, the last commit before issue
 * 36: tsx at run time, every command imported at start), extracted with `git archive` into a temporary
 * folder beside this checkout's node_modules, so both sides run on this machine in the same run.
 *
 * Needs a build (`npm run build`); refuses a stale one as the launcher does. Rewrites the `startup`
 * region of docs/benchmarks.md (unless `--no-write`) with the machine, Node version and load.
 */
import { type ChildProcess, execSync, spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { loadNow, loadSpan, machineLine, utcStamp, writeRegion } from './docRegions.ts'
import { exitWithHelpOnRequest, flag, numberFlag, sleepMs } from './stats.ts'

exitWithHelpOnRequest(import.meta.url)

const ROOT = resolve(import.meta.dirname, '..')
const RUNS = numberFlag('runs', 3)
const WRITE = !process.argv.includes('--no-write')
const BASELINE_REV = flag('baseline-rev') ?? 'd854e41'
const TICK_S = 100 // USER_HZ on Linux: /proc reports CPU time in these ticks

/** CPU seconds of waited-for children so far (fields cutime + cstime of /proc/self/stat). */
function childrenCpuS(): number {
  const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? []
  return (Number(f[13]) + Number(f[14])) / TICK_S
}

/** CPU seconds used so far by `pid` and every process below it (user + system, all threads). */
function treeCpuS(pid: number): number {
  const stats = new Map<number, { ppid: number; cpu: number }>()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const f = readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
      stats.set(Number(name), { ppid: Number(f[1]), cpu: (Number(f[11]) + Number(f[12])) / TICK_S })
    } catch {
      // gone meanwhile
    }
  }
  const inTree = (p: number): boolean => {
    for (let q: number | undefined = p, hops = 0; q !== undefined && q > 1 && hops < 20; hops += 1) {
      if (q === pid) return true
      q = stats.get(q)?.ppid
    }
    return false
  }
  let sum = 0
  for (const [p, s] of stats) if (inTree(p)) sum += s.cpu
  return sum
}

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const srv = createServer()
    srv.once('error', fail)
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address()
      srv.close(() =>
        typeof addr === 'object' && addr !== null ? ok(addr.port) : fail(new Error('no port')),
      )
    })
  })
}

interface Sample {
  wallS: number
  cpuS: number
}

function versionOnce(args: readonly string[], cwd = ROOT): Sample {
  const cpu0 = childrenCpuS()
  const t0 = performance.now()
  const r = spawnSync(args[0] as string, args.slice(1), { cwd, encoding: 'utf8' })
  const wallS = (performance.now() - t0) / 1000
  if (r.status !== 0 || !/^perpbot \d/.test(r.stdout)) throw new Error(`${args.join(' ')}: ${r.stderr}`)
  return { wallS, cpuS: childrenCpuS() - cpu0 }
}

/** Batches the bot has settled so far, from its /metrics; undefined while it does not answer. */
async function settledBatches(port: number): Promise<number | undefined> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(500) })
    if (!res.ok) return undefined
    let n = 0
    for (const m of (await res.text()).matchAll(/^perpbot_batches_total\{[^}]*\} (\d+)/gm)) n += Number(m[1])
    return n
  } catch {
    return undefined
  }
}

async function firstBatchOnce(command: readonly string[], cwd = ROOT): Promise<Sample> {
  const port = await freePort()
  const state = mkdtempSync(join(tmpdir(), 'perpbot-startup-'))
  const config = join(state, 'dry-run.json')
  // The dry-run overlay with a state dir of its own (the journal) and the ops server on a free port.
  writeFileSync(
    config,
    JSON.stringify({
      ...JSON.parse(readFileSync(join(cwd, 'config', 'dry-run.json'), 'utf8')),
      ops: { stateDir: state, port },
    }),
  )
  const t0 = performance.now()
  const child: ChildProcess = spawn(command[0] as string, [...command.slice(1), '--config', config], {
    cwd,
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  })
  let stderr = ''
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString()
  })
  const exited = new Promise<number | null>((ok) => child.once('exit', (code) => ok(code)))
  let done = false
  void exited.then(() => {
    done = true
  })
  try {
    while (!done) {
      const n = await settledBatches(port)
      if (n !== undefined && n > 0) {
        const wallS = (performance.now() - t0) / 1000
        return { wallS, cpuS: treeCpuS(child.pid as number) }
      }
      if (performance.now() - t0 > 120_000) throw new Error(`${command.join(' ')}: no batch within 120 s`)
      await sleepMs(20)
    }
    throw new Error(`${command.join(' ')} exited before its first batch: ${stderr.slice(-500)}`)
  } finally {
    if (!done) process.kill(-(child.pid as number), 'SIGINT')
    await Promise.race([exited, sleepMs(15_000)])
    if (!done) process.kill(-(child.pid as number), 'SIGKILL')
    rmSync(state, { recursive: true, force: true })
  }
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor((s.length - 1) / 2)] as number
}

interface Row {
  label: string
  samples: Sample[]
  load: string
}

async function measure(
  cases: readonly { label: string; run: () => Promise<Sample> | Sample }[],
): Promise<Row[]> {
  const rows = cases.map((c) => ({ label: c.label, samples: [] as Sample[], from: loadNow() }))
  // Alternating, so a change in the machine's load falls on every case alike.
  for (let i = 0; i < RUNS; i++) {
    for (const [j, c] of cases.entries()) {
      const s = await c.run()
      rows[j]?.samples.push(s)
      console.log(`${c.label}: ${s.wallS.toFixed(2)} s wall, ${s.cpuS.toFixed(2)} CPU-s`)
    }
  }
  return rows.map((r) => ({ label: r.label, samples: r.samples, load: loadSpan(r.from) }))
}

const built = spawnSync(process.execPath, [join(ROOT, 'bin', 'perpbot.js'), '--version'], { cwd: ROOT })
if (built.status !== 0) {
  console.error(built.stderr.toString().trim())
  process.exit(2)
}
const node = process.execPath
// The tree before: its own sources and config, this checkout's node_modules (tsx among them).
const before = mkdtempSync(join(tmpdir(), 'perpbot-startup-before-'))
execSync(`git archive ${BASELINE_REV} | tar -x -C ${before}`, { cwd: ROOT })
symlinkSync(join(ROOT, 'node_modules'), join(before, 'node_modules'))
process.on('exit', () => rmSync(before, { recursive: true, force: true }))
const load0 = loadNow()
const started = new Date()
console.log(`# start-up (${machineLine()}, ${RUNS} runs each, load average ${load0.toFixed(1)})\n`)

const version = await measure([
  {
    label: 'perpbot --version, compiled (bin/perpbot.js)',
    run: () => versionOnce([node, 'bin/perpbot.js', '--version']),
  },
  {
    label: `perpbot --version, sources through tsx (before: ${BASELINE_REV})`,
    run: () => versionOnce([node, '--import', 'tsx', 'src/cli/main.ts', '--version'], before),
  },
])
const first = await measure([
  { label: '`npm start`, compiled', run: () => firstBatchOnce(['npm', 'start', '--']) },
  {
    label: '`node bin/perpbot.js run`, compiled',
    run: () => firstBatchOnce([node, 'bin/perpbot.js', 'run']),
  },
  {
    label: `\`node --import tsx src/cli/main.ts run\`, sources through tsx (before: ${BASELINE_REV})`,
    run: () => firstBatchOnce([node, '--import', 'tsx', 'src/cli/main.ts', 'run'], before),
  },
])

const table = (rows: readonly Row[]): string[] => [
  '| case | wall s, median (each run) | CPU s, median (each run) | load during the case |',
  '|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.label} | **${median(r.samples.map((s) => s.wallS)).toFixed(2)}** (${r.samples.map((s) => s.wallS.toFixed(2)).join(', ')}) | ${median(r.samples.map((s) => s.cpuS)).toFixed(2)} (${r.samples.map((s) => s.cpuS.toFixed(2)).join(', ')}) | ${r.load} |`,
  ),
]
const body = [
  `Measured ${utcStamp(started)} by \`npm run start:bench\` on ${machineLine()}; ${loadSpan(load0)} over the run (${RUNS} runs of each case, alternating).`,
  '',
  '`perpbot --version`, spawn to exit:',
  '',
  ...table(version),
  '',
  'From the start command to the first order batch (a dry run against the embedded mock; the first batch the bot',
  'counts as settled on its `/metrics`, a loopback round trip after it was sent; CPU of the process tree until then):',
  '',
  ...table(first),
].join('\n')
console.log(`\n${body}`)
if (WRITE) writeRegion(join(ROOT, 'docs', 'benchmarks.md'), 'startup', body)

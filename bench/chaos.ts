/**
 * Chaos: the mock in this process (flaky faults on, real clock, 127.0.0.1) and the bot as a child
 * process, `perpbot run --live` pointed at the mock exactly as test/integration/deadManSwitch.test.ts
 * runs it (the mock is the venue; nothing leaves loopback), killed with SIGKILL at seeded random moments
 * and restarted, `--rounds` times.
 *
 *   npm run chaos -- [--rounds 10] [--seed 7] [--deadline-ms 10000] [--no-docs] [--help]
 *
 * Each round: start the bot; wait until the mock sees it read the open orders (reconcile) and get a
 * command accepted (it quotes); let it run a seeded 2–12 s; SIGKILL. Then either restart at once (its
 * successor must reconcile the orphans) or, on a seeded half of the rounds and always the last, wait
 * past the dead-man deadline the dead process armed and check that none of its orders rest. All the
 * time, on the mock's side: every command's signed `ts` against the mock's clock (stale beyond 10 s),
 * signatures (none twice), the account's live orders (no two with one client order id). Every log
 * line, alert webhook payload, /status and /metrics (and the dashboard, when served) goes through
 * the secrets scan. At the end one more start reconciles the journal and stops cleanly: the journal
 * must equal the mock's record of the account's fills and funding (each once, field for field). Exit 1
 * on any violation.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { systemClock } from '../src/clock.ts'
import type { FaultKind } from '../src/mock/faults.ts'
import type { MockRequest, MockResponse } from '../src/mock/mockHttp.ts'
import { DEFAULT_INSTRUMENTS } from '../src/mock/perps/instruments.ts'
import { createMockServerHandler, serveMock } from '../src/mock/server.ts'
import { createMockStreamServer } from '../src/mock/stream/streamServer.ts'
import { createPerpsClient } from '../src/perps/client/createPerpsClient.ts'
import { CommandSigner } from '../src/perps/signing/commandSigner.ts'
import { perpsDomainFromExchangeInfo } from '../src/perps/signing/domain.ts'
import { SaltSource } from '../src/perps/signing/salt.ts'
import { seededRandom } from '../src/random.ts'
import { compareJournal } from './chaosJournal.ts'
import {
  type Check,
  checksTable,
  loadNow,
  loadSpan,
  machineLine,
  printChecks,
  utcStamp,
  writeRegion,
} from './docRegions.ts'
import { startFakeWebhook } from './fakeWebhook.ts'
import { probeOps } from './opsProbe.ts'
import { formatScan, SecretsScanner } from './secretsScan.ts'
import { flag, numberFlag } from './stats.ts'

/** The machine's load as the run starts (the docs say it beside the figures). */
const LOAD0 = loadNow()

const USAGE = `usage: npm run chaos -- [--rounds N] [--seed N] [--deadline-ms MS] [--no-docs]
  --rounds N        kill -9 and restart the bot N times (default 10, a few minutes)
  --seed N          seed of the mock, its faults and the kill moments (default 7)
  --deadline-ms MS  the bot's dead-man deadline (ops.deadManSwitch.deadlineMs; default 10000, the minimum)
  --no-docs         do not rewrite the chaos regions of docs/reliability.md and docs/benchmarks.md`

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(USAGE)
  process.exit(0)
}

const ROUNDS = numberFlag('rounds', 10)
const SEED = numberFlag('seed', 7)
const DEADLINE_MS = numberFlag('deadline-ms', 10_000)
const WRITE_DOCS = !process.argv.includes('--no-docs')
const FLAGS = process.argv.slice(2).join(' ') || '(defaults)'
/** A signed `ts` further than this from the mock's clock on arrival is stale (the `exp` is 4 s). */
const STALE_MS = 10_000
/** How long a (re)started bot may take to reconcile and get a command accepted (wall; the machine is shared). */
const QUOTE_WAIT_MS = 120_000
/** Starts that end on their own before quoting, per round, before the round fails. */
const MAX_STARTS_PER_ROUND = 5
if (flag('rounds') !== undefined && !(Number.isInteger(ROUNDS) && ROUNDS >= 1 && ROUNDS <= 1000)) {
  console.error('--rounds must be an integer from 1 to 1000')
  process.exit(2)
}

const rng = seededRandom(SEED ^ 0xc4a05)
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

// ---------------------------------------------------------------------------------------------------
// The mock, observed on the wire

const instance = createMockServerHandler({
  seed: SEED,
  scenario: 'flaky',
  clock: 'real',
  // Faults go on once the proxy is registered (the registration is the operator's, not the bot's).
  faults: 'none',
  catalogue: { eventCount: 120 },
  // Funding every minute (the venue settles hourly): a run of a few minutes crosses several funding
  // times, so the journal's funding is compared with the mock's record, not only its fills.
  exchange: { instruments: DEFAULT_INSTRUMENTS.map((i) => ({ ...i, fundingInterval: '1m' })) },
})
const wire = {
  commands: 0,
  rejected: new Map<string, number>(),
  sigs: new Set<string>(),
  duplicateSigs: 0,
  stale: 0,
  worstSkewMs: 0,
  /** Per process generation: accepted commands, open-order reads. */
  accepted: 0,
  openOrderReads: 0,
  deadlines: [] as number[],
}
const observed = async (req: MockRequest): Promise<MockResponse> => {
  const received = instance.serverClock.now()
  const res = await instance.handler(req)
  const command = req.method !== 'GET' && req.path.startsWith('/v1/trade/')
  if (req.method === 'GET' && req.path.startsWith('/v1/account/open-orders')) wire.openOrderReads += 1
  if (!command) return res
  wire.commands += 1
  const body = req.body as { sig?: unknown; ts?: unknown; op?: { type?: unknown; args?: { time?: unknown } } }
  if (typeof body?.sig === 'string') {
    if (wire.sigs.has(body.sig)) wire.duplicateSigs += 1
    else wire.sigs.add(body.sig)
  }
  if (typeof body?.ts === 'number') {
    const skew = Math.abs(received - body.ts)
    wire.worstSkewMs = Math.max(wire.worstSkewMs, skew)
    if (skew > STALE_MS) wire.stale += 1
  }
  if (res.status < 300) {
    wire.accepted += 1
    const time = body?.op?.args?.time
    if (body?.op?.type === 'autoCancel' && typeof time === 'number') wire.deadlines.push(time)
  } else {
    const err = JSON.stringify(res.body ?? '').slice(0, 80)
    const key = `${res.status} ${/"error":"([^"]*)"/.exec(err)?.[1] ?? err}`
    wire.rejected.set(key, (wire.rejected.get(key) ?? 0) + 1)
  }
  return res
}
const stream = createMockStreamServer({
  exchange: instance.exchange,
  clock: instance.clock,
  serverClock: instance.serverClock,
  random: seededRandom((SEED ^ 0x057e_a11f) >>> 0),
  faults: () => instance.faults.config.stream,
})
const mock = await serveMock({ ...instance, handler: observed }, 0, stream)

// The operator's proxy, registered before the faults are on (as test/helpers/mockAccount.ts does).
const pub = createPerpsClient({ baseUrl: mock.url, clock: systemClock, random: seededRandom(1) })
const domain = perpsDomainFromExchangeInfo(await pub.getExchange())
const ownerKey = generatePrivateKey()
const owner = new CommandSigner({
  privateKey: ownerKey,
  clock: systemClock,
  salts: new SaltSource(seededRandom(2)),
  domain,
})
const proxyKey = generatePrivateKey()
const proxy = privateKeyToAccount(proxyKey).address
const { credentials } = await pub.createProxy(
  { proxy, expiry: Date.now() + 30 * 86_400_000, label: 'chaos' },
  { owner },
)
await pub.close()
instance.setFaults('flaky')

const scanner = new SecretsScanner({
  'proxy private key': proxyKey,
  'owner private key': ownerKey,
  'proxy secret': credentials.secret,
})
const webhookToken = `whk${Buffer.from(`chaos-${SEED}-${Date.now()}`).toString('hex')}`
const webhook = await startFakeWebhook(webhookToken, (body) => {
  scanner.scan('webhook', body)
  scanner.end('webhook')
})
scanner.add('webhook URL', webhook.url)
scanner.add('webhook token', webhookToken)

const liveOrders = () => instance.exchange.accountOf(proxy)?.openOrders ?? []

// ---------------------------------------------------------------------------------------------------
// The bot as a child process

const dir = mkdtempSync(join(tmpdir(), 'perpbot-chaos-'))
const overlay = join(dir, 'live.json')
writeFileSync(
  overlay,
  JSON.stringify({
    mode: 'live',
    ops: {
      stateDir: join(dir, 'state'),
      deadManSwitch: { deadlineMs: DEADLINE_MS, refreshMs: Math.floor(DEADLINE_MS / 3) },
    },
    alerts: { webhook: { minSeverity: 'info' } },
  }),
)
const env = {
  PATH: process.env.PATH ?? '',
  PERPS_URL: mock.url,
  PERPS_WS_URL: mock.wsUrl,
  CATALOGUE_URL: mock.url,
  PERPS_PROXY_PRIVATE_KEY: proxyKey,
  PERPS_PROXY_SECRET: credentials.secret,
  ALERT_WEBHOOK_URL: webhook.url,
}

interface Child {
  proc: ChildProcess
  exited: Promise<number | null>
  exitCode: number | null | undefined
  opsUrl: string | undefined
  generation: number
  /** The last few lines (bounded), to say why a start ended on its own. */
  lastLines: string[]
  /** The first failed preflight check it logged, if any. */
  preflightFail: string | undefined
  /**
   * The bot said it runs (`perpbot live running with …`): its start is over (journal reconciled,
   * orders reconciled, quoting). The live preflight reads open orders and signs self-tests first, so
   * the mock's wire alone cannot tell a start still under way from a bot quoting.
   */
  running: boolean
}
const logLevels = new Map<string, number>()
let generation = 0

function startBot(): Child {
  generation += 1
  const gen = generation
  const proc = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/cli/main.ts',
      'run',
      '--live',
      '--config',
      overlay,
      '--ops-port',
      '0',
      '--log-level',
      'info',
    ],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  const child: Child = {
    proc,
    exited: Promise.resolve(null),
    exitCode: undefined,
    opsUrl: undefined,
    generation: gen,
    lastLines: [],
    preflightFail: undefined,
    running: false,
  }
  child.exited = new Promise((resolve) =>
    // 'close' comes after the process's output has been read (its last lines say why it ended).
    proc.once('close', (code) => {
      child.exitCode = code
      resolve(code)
    }),
  )
  // Lines as they stream by: scanned, counted by level, the ops URL picked out; nothing is kept.
  for (const [name, s] of [
    ['stdout', proc.stdout],
    ['stderr', proc.stderr],
  ] as const) {
    let partial = ''
    s?.on('end', () => {
      if (partial !== '') child.lastLines.push(partial.slice(0, 300))
      if (child.lastLines.length > 4) child.lastLines.shift()
    })
    s?.setEncoding('utf8')
    s?.on('data', (d: string) => {
      scanner.scan(`log:${gen}:${name}`, d)
      const lines = (partial + d).split('\n')
      partial = lines.pop() ?? ''
      for (const line of lines) {
        const level = /"level":(\d+)/.exec(line)?.[1] ?? name
        logLevels.set(level, (logLevels.get(level) ?? 0) + 1)
        child.lastLines.push(line.slice(0, 300))
        if (child.lastLines.length > 4) child.lastLines.shift()
        if (child.preflightFail === undefined && /"status":"fail".*"msg":"preflight/.test(line))
          child.preflightFail = /"msg":"preflight fail\s*([^"]{0,160})/.exec(line)?.[1] ?? 'a check failed'
        if (/"msg":"perpbot live running with/.test(line)) child.running = true
        // The start-up's early server first, then the bot's own (the one to probe): the last one wins.
        if (line.includes('ops server listening'))
          child.opsUrl = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(line)?.[1] ?? child.opsUrl
      }
    })
  }
  return child
}

async function kill(child: Child): Promise<void> {
  if (child.exitCode === undefined) child.proc.kill('SIGKILL')
  await child.exited
}

// ---------------------------------------------------------------------------------------------------
// Rounds

interface RoundResult {
  round: number
  starts: number
  selfExits: number[]
  /** Starts refused by the live preflight (exit 2, nothing sent) because a check hit a fault. */
  refusals: number
  reconciled: boolean
  quoted: boolean
  /** Wall ms from spawn to the first accepted command. */
  toQuoteMs: number | undefined
  ranMs: number
  restingAtKill: number
  mode: 'wait' | 'immediate'
  /** Orders of the dead process still resting past its dead-man deadline (wait rounds). */
  leftPastDeadline: number | undefined
}
const rounds: RoundResult[] = []
const preflightFails = new Map<string, number>()
const duplicateCoids = new Set<string>()
let duplicateChecks = 0
const checkCoids = (): void => {
  duplicateChecks += 1
  const seen = new Set<string>()
  for (const o of liveOrders()) {
    const coid = o.client_order_id
    if (coid === undefined || coid === null) continue
    if (seen.has(coid)) duplicateCoids.add(coid)
    seen.add(coid)
  }
}
const coidTimer = setInterval(checkCoids, 250)
const opsSeen = { probes: 0, status: 0, metrics: 0, dashboard: 0, events: 0 }
const started = performance.now()
const faultsAtStart = { ...instance.state().faults.counts }

console.log(
  `# chaos: ${ROUNDS} rounds of kill -9 and restart, flaky faults, seed ${SEED}, dead-man deadline ${DEADLINE_MS} ms, mock on ${mock.url}\n`,
)
for (let r = 1; r <= ROUNDS; r++) {
  const result: RoundResult = {
    round: r,
    starts: 0,
    selfExits: [],
    refusals: 0,
    reconciled: false,
    quoted: false,
    toQuoteMs: undefined,
    ranMs: 0,
    restingAtKill: 0,
    mode: r === ROUNDS || r === 1 ? 'wait' : r === 2 ? 'immediate' : rng.next() < 0.5 ? 'wait' : 'immediate',
    leftPastDeadline: undefined,
  }
  let child: Child | undefined
  while (result.starts < MAX_STARTS_PER_ROUND && !result.quoted) {
    result.starts += 1
    const spawnedAt = performance.now()
    wire.accepted = 0
    wire.openOrderReads = 0
    wire.deadlines = []
    child = startBot()
    for (;;) {
      if (child.exitCode !== undefined) break
      if (wire.openOrderReads > 0) result.reconciled = true
      if (result.reconciled && wire.accepted > 0 && child.running) {
        result.quoted = true
        result.toQuoteMs = performance.now() - spawnedAt
        break
      }
      if (performance.now() - spawnedAt > QUOTE_WAIT_MS) break
      await sleep(100)
    }
    if (!result.quoted) {
      // It ended on its own or never quoted: note it and start again. A live start whose preflight
      // read hit an injected fault refuses to start (exit 2, nothing sent): counted apart.
      await kill(child)
      if (child.exitCode === 2 && child.preflightFail !== undefined) {
        result.refusals += 1
        preflightFails.set(child.preflightFail, (preflightFails.get(child.preflightFail) ?? 0) + 1)
      } else result.selfExits.push(child.exitCode ?? -1)
      console.log(
        `round ${r}: start ${result.starts} ended (exit ${child.exitCode}) before quoting; last lines:`,
      )
      for (const l of child.lastLines) console.log(`  ${l.slice(0, 200)}`)
    }
  }
  if (child === undefined || !result.quoted) {
    rounds.push(result)
    console.log(`round ${r}: the bot did not quote after ${result.starts} start(s)`)
    continue
  }
  if (child.opsUrl !== undefined) {
    const p = await probeOps(child.opsUrl, scanner)
    opsSeen.probes += 1
    opsSeen.status += p.status ? 1 : 0
    opsSeen.metrics += p.metrics ? 1 : 0
    opsSeen.dashboard += p.dashboard ? 1 : 0
    opsSeen.events += p.events
  }
  const runMs = 2_000 + Math.floor(rng.next() * 10_000)
  const t0 = performance.now()
  while (performance.now() - t0 < runMs && child.exitCode === undefined) await sleep(100)
  result.ranMs = Math.round(performance.now() - t0)
  if (child.exitCode !== undefined) result.selfExits.push(child.exitCode ?? -1)
  await kill(child)
  checkCoids()
  const killedAt = instance.serverClock.now()
  const resting = liveOrders()
  result.restingAtKill = resting.length
  if (result.mode === 'wait') {
    // The last deadline the dead process armed, else the longest it could be; then a margin of 1.5 s
    // for the mock's 100 ms steps and the refresh that may have been in flight at the kill.
    const armed = wire.deadlines.at(-1)
    const deadline = Math.max(armed ?? 0, killedAt + DEADLINE_MS)
    while (instance.serverClock.now() < deadline + 1_500) await sleep(200)
    const left = liveOrders().filter((o) => resting.some((x) => x.order_id === o.order_id))
    result.leftPastDeadline = left.length
  }
  rounds.push(result)
  console.log(
    `round ${r}: ${result.starts} start(s)${result.selfExits.length ? ` (ended on its own with ${result.selfExits.join(', ')})` : ''}, reconciled and quoting after ${((result.toQuoteMs ?? 0) / 1000).toFixed(1)} s, ran ${(result.ranMs / 1000).toFixed(1)} s, SIGKILL with ${result.restingAtKill} order(s) resting; ${result.mode === 'wait' ? `past the dead-man deadline ${result.leftPastDeadline} left` : 'restarted at once'}`,
  )
}
clearInterval(coidTimer)

// ---------------------------------------------------------------------------------------------------
// The journal against the mock's own record of the account's fills and funding. One more start
// reconciles the journal with the venue's history since the last journaled rows (the time since the
// last kill), and is stopped cleanly (SIGTERM) right after: every venue fill up to that start must be
// in the journal exactly once, field for field (no torn rows).

const reconcileUntil = instance.serverClock.now()
{
  wire.openOrderReads = 0
  const last = startBot()
  const t0 = performance.now()
  // Its start over (the journal reconciled with the venue), it is stopped cleanly.
  while (
    last.exitCode === undefined &&
    !(wire.openOrderReads > 0 && last.running) &&
    performance.now() - t0 < QUOTE_WAIT_MS
  )
    await sleep(100)
  if (last.exitCode === undefined) last.proc.kill('SIGTERM')
  await last.exited
}
const journalCheck = await compareJournal(join(dir, 'state', 'journal-live.sqlite'), {
  exchange: instance.exchange,
  proxy,
  now: () => instance.serverClock.now(),
  reconcileUntil,
})

const wallS = (performance.now() - started) / 1000

// ---------------------------------------------------------------------------------------------------
// Verdict

const faultCounts = instance.state().faults.counts
const injected = (Object.keys(faultCounts) as FaultKind[])
  .map((k) => [k, faultCounts[k] - (faultsAtStart[k] ?? 0)] as const)
  .filter(([, v]) => v > 0)
const injectedTotal = injected.reduce((a, [, v]) => a + v, 0)
const selfExits = rounds.flatMap((r) => r.selfExits)
const refusals = rounds.reduce((a, r) => a + r.refusals, 0)
const waitRounds = rounds.filter((r) => r.mode === 'wait')
const left = waitRounds.reduce((a, r) => a + (r.leftPastDeadline ?? 0), 0)
const notQuoting = rounds.filter((r) => !r.quoted || !r.reconciled)
const toQuote = rounds
  .flatMap((r) => (r.toQuoteMs === undefined ? [] : [r.toQuoteMs / 1000]))
  .sort((a, b) => a - b)

await mock.close()
await webhook.close()
// The journal's database and its WAL are on disk for the operator too: nothing secret may be in them.
for (const f of ['journal-live.sqlite', 'journal-live.sqlite-wal']) {
  const path = join(dir, 'state', f)
  if (!existsSync(path)) continue
  scanner.scan(`journal:${f}`, readFileSync(path, 'latin1'))
  scanner.end(`journal:${f}`)
}
rmSync(dir, { recursive: true, force: true })

const checks: Check[] = [
  {
    name: 'faults injected vs survived',
    pass: selfExits.length === 0,
    figure: `${injectedTotal} injected (${injected.map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}); the running bot ended on its own ${selfExits.length} time(s)${selfExits.length ? ` (exit codes ${selfExits.join(', ')})` : ''}, so ${selfExits.length === 0 ? 'all' : 'not all'} survived; ${refusals} start(s) refused by the live preflight when a check hit a fault (exit 2, nothing sent; started again)${preflightFails.size ? `: ${[...preflightFails].map(([k, v]) => `${k} ×${v}`).join('; ')}` : ''}`,
  },
  {
    name: 'after every restart it reconciles and quotes (mock side)',
    pass: notQuoting.length === 0 && rounds.length === ROUNDS,
    figure: `${rounds.length - notQuoting.length} of ${ROUNDS} rounds: open orders read, then commands accepted, after ${toQuote.length ? `${toQuote[0]?.toFixed(1)}–${toQuote.at(-1)?.toFixed(1)} s (median ${toQuote[Math.floor(toQuote.length / 2)]?.toFixed(1)} s)` : 'n/a'} of wall time`,
  },
  {
    name: 'zero duplicate orders',
    pass: wire.duplicateSigs === 0 && duplicateCoids.size === 0,
    figure: `${wire.duplicateSigs} signatures sent twice of ${wire.commands} commands; ${duplicateCoids.size} client order ids live twice (${duplicateChecks} checks of the live book)`,
  },
  {
    name: 'zero orders left by a dead process past the dead-man deadline',
    pass: left === 0 && waitRounds.length > 0,
    figure: `${left} left in ${waitRounds.length} rounds that waited (${waitRounds.reduce((a, r) => a + r.restingAtKill, 0)} resting at the kills)`,
  },
  {
    name: 'zero commands with a stale timestamp',
    pass: wire.stale === 0,
    figure: `${wire.stale} of ${wire.commands} beyond ${STALE_MS / 1000} s of the mock's clock (worst ${(wire.worstSkewMs / 1000).toFixed(2)} s)`,
  },
  {
    name: "the journal equals the mock's record (fills and funding once each, no torn rows)",
    pass: journalCheck.pass,
    figure: journalCheck.figure,
  },
  {
    name: 'secrets scan',
    pass: scanner.summary().hits.length === 0 && opsSeen.status > 0,
    figure: `${formatScan(scanner.summary(), scanner.needleCount)}; ops probes ${opsSeen.probes} (/status ${opsSeen.status}, /metrics ${opsSeen.metrics}, dashboard ${opsSeen.dashboard}); webhook deliveries ${webhook.deliveries()}`,
  },
]
const summaryLines = [
  `${ROUNDS} rounds (${rounds.reduce((a, r) => a + r.starts, 0)} starts, ${waitRounds.length} waited past the deadline, ${ROUNDS - waitRounds.length} restarted at once), seed ${SEED}, dead-man deadline ${DEADLINE_MS / 1000} s: ${(wallS / 60).toFixed(1)} min of wall time`,
  `commands ${wire.commands}; rejected: ${[...wire.rejected].map(([k, v]) => `${k} ×${v}`).join('; ') || 'none'}`,
  `log lines by level: ${[...logLevels].map(([k, v]) => `${k} ${v}`).join(', ')}`,
]
console.log('\n# summary\n')
for (const l of summaryLines) console.log(l)
const failed = printChecks(checks)

if (WRITE_DOCS) {
  const table = checksTable(checks)
  const head = `Generated by \`npm run chaos -- ${FLAGS}\` on ${utcStamp()} on ${machineLine()}, ${loadSpan(LOAD0)} over the run (bench/chaos.ts; rerunning replaces this block).`
  const body = `${head}\n\n${summaryLines.map((l) => `- ${l}`).join('\n')}\n\n${table}`
  writeRegion('docs/reliability.md', 'chaos', `## Chaos: kill -9 and restart under flaky faults\n\n${body}`)
  writeRegion('docs/benchmarks.md', 'chaos', `### Chaos figures (latest run)\n\n${body}`)
  console.log('docs/reliability.md and docs/benchmarks.md: chaos regions rewritten')
}
process.exitCode = failed.length === 0 ? 0 : 1

/**
 * The child of killNine.test.ts: a journal on SQLite taking the venue's fills as the bot does (one
 * `fill` call each, batched off the caller's path), forever, until the parent kills it with SIGKILL.
 * Prints `made N` before handing fill N to the journal: from then on the venue has it.
 */
import { SimulatedClock } from 'xstate'
import { openJournalDb } from '../../src/journal/database.ts'
import { createJournal } from '../../src/journal/journal.ts'
import { JournalSettings } from '../../src/journal/settings.ts'
import { KILL_T0, killFill } from './killFills.ts'

const [path = '', fromArg = '0'] = process.argv.slice(2)
let n = Number(fromArg)
const clock = new SimulatedClock()
clock.set(KILL_T0)
const journal = createJournal({
  db: await openJournalDb({ kind: 'sqlite', path }),
  clock,
  // Flushes every ~20 ms of real time, ~140 rows each: a kill nearly always lands with rows in flight.
  settings: JournalSettings.parse({ flushMs: 200, batchRows: 400 }),
  run: { version: 'kill', mode: 'live', configHash: 'k' },
})
// The writer's timers run on the simulated clock: move it with real time.
setInterval(() => {
  for (let i = 0; i < 7; i++) {
    process.stdout.write(`made ${n}\n`)
    journal.fill(killFill(n), 'stream')
    n += 1
  }
  clock.increment(10)
}, 1)

/**
 * The counting mock in its own process (for `bench/fleetRun.ts --mock-process`), as the venue is:
 * started with `fork`, its priority raised by the parent, so its arrival stamps are not taken on
 * the bench's starved event loop. argv: the secrets directory, then the account names.
 * Sends `{ url, streamUrl }` once its accounts are registered; on the message 'stop' it closes and
 * sends `{ arrivals, orders }`, then exits.
 */
import { startCountingMock } from '../test/fleet/fleetBots.ts'

const [dir, ...accounts] = process.argv.slice(2)
if (dir === undefined || accounts.length === 0 || process.send === undefined) {
  console.error('usage: forked by bench/fleetRun.ts with <secretsDir> <account>...')
  process.exit(2)
}
const send = process.send.bind(process)
const mock = await startCountingMock()
await mock.accounts(accounts, dir)
send({ url: mock.loop.server.url, streamUrl: mock.loop.streamUrl })
process.on('message', (m: unknown) => {
  if (m !== 'stop') return
  void mock.close().finally(() => {
    send({ arrivals: mock.arrivals, orders: mock.orders }, () => process.exit(0))
  })
})
// Bounded: the parent's disconnect (it died) ends this process too.
process.on('disconnect', () => process.exit(0))

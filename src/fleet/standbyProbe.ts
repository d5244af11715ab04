/**
 * While a fleet process stands by (no account free yet), the bot and its ops server do not exist;
 * an orchestrator's liveness probe must still see it alive, or it would restart the warm standby
 * over and over. This answers `/livez` 200 and `/readyz` 503 (`standby`) on the ops address until
 * the account is held; it is closed before the bot's own ops server binds the same port.
 */
import { createServer, type Server } from 'node:http'

export interface StandbyProbe {
  readonly port: number
  close(): Promise<void>
}

export async function startStandbyProbe(host: string, port: number): Promise<StandbyProbe> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]
    if (path === '/livez') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok: fleet standby\n')
      return
    }
    res.writeHead(503, { 'content-type': 'text/plain' }).end('standby: no fleet account held yet\n')
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => resolve())
  })
  const addr = server.address()
  return {
    port: typeof addr === 'object' && addr !== null ? addr.port : port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

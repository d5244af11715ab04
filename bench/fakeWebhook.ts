/**
 * A fake alert webhook on 127.0.0.1: its URL carries a secret token (so the scan has a URL to look
 * for), it answers 200 and feeds every payload to a callback without keeping it.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface FakeWebhook {
  url: string
  deliveries(): number
  close(): Promise<void>
}

export async function startFakeWebhook(
  token: string,
  onPayload: (body: string) => void,
): Promise<FakeWebhook> {
  let n = 0
  const server = createServer((req, res) => {
    const parts: Buffer[] = []
    let size = 0
    req.on('data', (d: Buffer) => {
      size += d.length
      if (size <= 1024 * 1024) parts.push(d)
    })
    req.on('end', () => {
      n += 1
      onPayload(Buffer.concat(parts).toString('utf8'))
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hooks/${token}`,
    deliveries: () => n,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** Whether a TCP port can be bound, checked by binding it for a moment. */
import { createServer } from 'node:net'

/** Resolves undefined when `host:port` can be bound, else why not (e.g. "is in use"). */
export function checkPortFree(host: string, port: number): Promise<string | undefined> {
  if (port === 0) return Promise.resolve(undefined)
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', (e: NodeJS.ErrnoException) => {
      resolve(
        e.code === 'EADDRINUSE'
          ? 'is in use'
          : e.code === 'EACCES'
            ? 'needs privileges'
            : `cannot be bound (${e.code ?? e.message})`,
      )
    })
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(undefined)))
  })
}

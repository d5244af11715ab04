/**
 * Real OS processes for the fleet tests: `node --import tsx <worker> <json args>`, their stdout
 * collected as lines, a `ready` line awaited, `go` sent on stdin, and the exit awaited (bounded).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

export interface Worker {
  readonly child: ChildProcess
  readonly lines: string[]
  readonly pid: number
  /** Resolves at the first line matching (or rejects after `ms`). */
  waitFor(pattern: RegExp, ms: number): Promise<string>
  go(): void
  exited(ms: number): Promise<number | null>
  kill(signal: NodeJS.Signals): void
}

export function workerPath(name: string): string {
  return fileURLToPath(new URL(`./workers/${name}`, import.meta.url))
}

export function startWorker(name: string, args: unknown): Worker {
  const child = spawn(process.execPath, ['--import', 'tsx', workerPath(name), JSON.stringify(args)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  const lines: string[] = []
  const waiters: { pattern: RegExp; resolve: (l: string) => void }[] = []
  let buf = ''
  let err = ''
  child.stdout?.on('data', (d: Buffer) => {
    buf += d.toString()
    let i = buf.indexOf('\n')
    while (i >= 0) {
      const line = buf.slice(0, i)
      buf = buf.slice(i + 1)
      lines.push(line)
      for (const w of [...waiters]) {
        if (w.pattern.test(line)) {
          waiters.splice(waiters.indexOf(w), 1)
          w.resolve(line)
        }
      }
      i = buf.indexOf('\n')
    }
  })
  child.stderr?.on('data', (d: Buffer) => {
    if (err.length < 4_000) err += d.toString()
  })
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const pid = child.pid ?? -1
  return {
    child,
    lines,
    pid,
    waitFor(pattern, ms) {
      const hit = lines.find((l) => pattern.test(l))
      if (hit !== undefined) return Promise.resolve(hit)
      return new Promise((resolve, reject) => {
        const t = setTimeout(
          () => reject(new Error(`worker ${pid} printed no ${pattern} within ${ms} ms; stderr:\n${err}`)),
          ms,
        )
        waiters.push({
          pattern,
          resolve: (l) => {
            clearTimeout(t)
            resolve(l)
          },
        })
      })
    },
    go() {
      child.stdin?.write('go\n')
    },
    async exited(ms) {
      const t = setTimeout(() => child.kill('SIGKILL'), ms)
      const code = await exit
      clearTimeout(t)
      if (code !== 0 && code !== null && err !== '') process.stderr.write(`worker ${pid} stderr:\n${err}\n`)
      return code
    },
    kill(signal) {
      child.kill(signal)
    },
  }
}

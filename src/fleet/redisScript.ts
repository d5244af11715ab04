/**
 * A Lua script run by its SHA (EVALSHA, one round trip), reloaded when the server no longer has it:
 * a restarted or flushed Redis answers NOSCRIPT, and the script goes again as EVAL, which caches it
 * for the calls after. So a Redis restart costs one EVAL per script, never an error to the caller.
 */
import { createHash } from 'node:crypto'

/** The two commands the fleet needs from a Redis client (ioredis's `Redis` satisfies it). */
export interface ScriptClient {
  evalsha(sha: string, numkeys: number, ...args: (string | number)[]): Promise<unknown>
  eval(script: string, numkeys: number, ...args: (string | number)[]): Promise<unknown>
}

const isNoScript = (e: unknown): boolean => e instanceof Error && /NOSCRIPT/.test(e.message)

export class LuaScript {
  readonly sha: string
  readonly source: string
  /** How many times the server had lost the script (NOSCRIPT) and it was sent again. */
  reloads = 0
  constructor(source: string) {
    this.source = source
    this.sha = createHash('sha1').update(source).digest('hex')
  }

  async run(
    client: ScriptClient,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<unknown> {
    try {
      return await client.evalsha(this.sha, keys.length, ...keys, ...args)
    } catch (e) {
      if (!isNoScript(e)) throw e
      this.reloads += 1
      return client.eval(this.source, keys.length, ...keys, ...args)
    }
  }
}

/** Reads a script's array reply, element `i`, as an integer (Redis returns Lua numbers as integers). */
export function intAt(reply: unknown, i: number): number {
  if (!Array.isArray(reply)) throw new TypeError('expected an array reply from a fleet script')
  const v: unknown = reply[i]
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : Number.NaN
  if (!Number.isFinite(n)) throw new TypeError(`expected a number at ${i} of a fleet script reply`)
  return n
}

export function stringAt(reply: unknown, i: number): string {
  if (!Array.isArray(reply)) throw new TypeError('expected an array reply from a fleet script')
  const v: unknown = reply[i]
  if (typeof v === 'string') return v
  if (typeof v === 'number') return String(v)
  throw new TypeError(`expected a string at ${i} of a fleet script reply`)
}

/**
 * A tiny JSON journal in `ops.stateDir`: written atomically (temp file + rename) so a crash mid-write
 * leaves the previous version, and read leniently (a missing or corrupt file is an empty state).
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export interface StateStore {
  /** The stored JSON object (the caller parses it with its schema), or undefined. */
  read(name: string): object | undefined
  write(name: string, value: unknown): void
}

export function createStateStore(dir: string, onError: (e: unknown) => void): StateStore {
  return {
    read(name: string): object | undefined {
      try {
        const value: unknown = JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8'))
        return value !== null && typeof value === 'object' ? value : undefined
      } catch {
        return undefined
      }
    },
    write(name, value) {
      try {
        mkdirSync(dir, { recursive: true })
        const file = join(dir, `${name}.json`)
        const tmp = `${file}.${process.pid}.tmp`
        writeFileSync(tmp, JSON.stringify(value))
        renameSync(tmp, file)
      } catch (e) {
        onError(e)
      }
    },
  }
}

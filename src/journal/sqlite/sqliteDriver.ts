/**
 * Which build of better-sqlite3 this Node loads. The 12.x line wraps its handles in Node's own
 * `node::ObjectWrap`, whose destructor since Node 24.19 removes an environment cleanup hook and
 * aborts the process ("Assertion failed: (env) != nullptr") when V8 collects a statement while no
 * environment is current: at exit, and at random moments while running (reproduced here: 2 of 12
 * short runs aborted mid-run; nodejs/node#65446). The 13.x line is built on Node-API and ships
 * prebuilt binaries, and does not abort, but needs Node 22 (it crashes at exit on Node 20). So Node
 * 22 and later load 13.x (the npm alias `better-sqlite3-napi`), Node 20 loads 12.x. Both have the
 * same API, the one Kysely's SQLite dialect drives.
 */
import { createRequire } from 'node:module'
import type BetterSqlite3 from 'better-sqlite3'

export type SqliteConstructor = typeof BetterSqlite3
export type SqliteHandle = BetterSqlite3.Database

const NODE_MAJOR = Number(process.versions.node.split('.')[0])

/** The package this Node should load. */
export const sqlitePackage = (major: number = NODE_MAJOR): string =>
  major >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3'

let loaded: SqliteConstructor | undefined

/** The driver's constructor, loaded on first use (so a run without a SQLite journal loads neither). */
export function sqliteDriver(): SqliteConstructor {
  if (loaded === undefined) {
    const load: (id: string) => SqliteConstructor = createRequire(import.meta.url)
    loaded = load(sqlitePackage())
  }
  return loaded
}

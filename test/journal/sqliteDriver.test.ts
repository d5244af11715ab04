import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { sqliteDriver, sqlitePackage } from '../../src/journal/sqlite/sqliteDriver.ts'

const NODE_MAJOR = Number(process.versions.node.split('.')[0])
const versionOf = (name: string): string =>
  z
    .object({ version: z.string() })
    .parse(JSON.parse(readFileSync(createRequire(import.meta.url).resolve(`${name}/package.json`), 'utf8')))
    .version

describe('the SQLite driver this Node loads', () => {
  it('is the Node-API build (13.x) from Node 22 on, the 12.x build on Node 20', () => {
    expect(sqlitePackage(20)).toBe('better-sqlite3')
    expect(sqlitePackage(22)).toBe('better-sqlite3-napi')
    expect(sqlitePackage(24)).toBe('better-sqlite3-napi')
    // The alias resolves to the line it names.
    expect(versionOf('better-sqlite3')).toMatch(/^12\./)
    expect(versionOf('better-sqlite3-napi')).toMatch(/^13\./)
  })

  it('loads the build for the running Node, and it works', () => {
    const Database = sqliteDriver()
    const db = new Database(':memory:')
    const row = db.prepare('select sqlite_version() as v').get()
    db.close()
    expect(row).toMatchObject({ v: expect.stringMatching(/^3\./) })
    expect(sqliteDriver()).toBe(createRequire(import.meta.url)(sqlitePackage(NODE_MAJOR)))
  })
})

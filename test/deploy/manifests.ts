/** Reading the deployment files for the tests: YAML parsed with `yaml`, typed access without casts. */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'

export const deployPath = (rel: string): string =>
  fileURLToPath(new URL(`../../deploy/${rel}`, import.meta.url))

export function readYaml(rel: string): unknown {
  return parse(readFileSync(deployPath(rel), 'utf8'), { merge: true })
}

export type Obj = Record<string, unknown>
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Follows a path of keys/indices; throws with the path when something is missing. */
export function at(v: unknown, ...path: (string | number)[]): unknown {
  let cur = v
  for (const [i, k] of path.entries()) {
    const next =
      typeof k === 'number' ? (Array.isArray(cur) ? cur[k] : undefined) : isObj(cur) ? cur[k] : undefined
    if (next === undefined) throw new Error(`missing ${path.slice(0, i + 1).join('.')}`)
    cur = next
  }
  return cur
}
export const obj = (v: unknown, ...path: (string | number)[]): Obj => {
  const r = at(v, ...path)
  if (!isObj(r)) throw new Error(`${path.join('.')} is not a mapping`)
  return r
}
export const arr = (v: unknown, ...path: (string | number)[]): unknown[] => {
  const r = at(v, ...path)
  if (!Array.isArray(r)) throw new Error(`${path.join('.')} is not a list`)
  return r
}
export const str = (v: unknown, ...path: (string | number)[]): string => String(at(v, ...path))

/** Kubernetes quantities (Mi, Gi, M) in MiB. */
export function mib(q: string): number {
  const m = /^(\d+(?:\.\d+)?)(Mi|Gi|M|G)$/.exec(q)
  if (m === null) throw new Error(`unsupported quantity ${q}`)
  const n = Number(m[1])
  return m[2] === 'Gi'
    ? n * 1024
    : m[2] === 'G'
      ? (n * 1e9) / 2 ** 20
      : m[2] === 'M'
        ? (n * 1e6) / 2 ** 20
        : n
}

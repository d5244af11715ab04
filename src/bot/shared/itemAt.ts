/**
 * Indexed reads that must exist (`noUncheckedIndexedAccess` types them `T | undefined`): `itemAt` throws on
 * an index outside the array instead of a cast hiding it, and `mustGet` does the same for a map key.
 */

/** `a[i]`, which must exist. */
export function itemAt<T>(a: readonly T[], i: number): T {
  const x = a[i]
  if (x === undefined) throw new RangeError(`index ${i} outside an array of ${a.length}`)
  return x
}

/** `m.get(k)`, which must exist. */
export function mustGet<K, V>(m: ReadonlyMap<K, V>, k: K): V {
  const v = m.get(k)
  if (v === undefined) throw new RangeError(`no entry for ${String(k)}`)
  return v
}

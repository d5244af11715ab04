/**
 * Where a tolerant list schema reports the rows it dropped while a body is parsed (see
 * perps/schemas/tolerantArray.ts). `collectDroppedItems(run)` runs a synchronous parse and returns,
 * beside its result, one line per dropped row (`[index.field]: reason`, never the value). Parsing is
 * synchronous, so a module-level collector cannot interleave between calls.
 */

let collector: string[] | undefined

/** Runs `run` (a synchronous zod parse) and returns what it dropped. */
export function collectDroppedItems<T>(run: () => T): { value: T; dropped: string[] } {
  const outer = collector
  const mine: string[] = []
  collector = mine
  try {
    return { value: run(), dropped: mine }
  } finally {
    collector = outer
    if (outer !== undefined) outer.push(...mine)
  }
}

/** Called by a tolerant schema for each row it drops (nothing happens outside a collection). */
export function reportDroppedRow(line: string): void {
  collector?.push(line)
}

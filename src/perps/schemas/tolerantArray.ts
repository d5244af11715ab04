/**
 * Per-item tolerance for lists the venue sends: one row the project cannot read (a price that is no
 * number, a missing field) is dropped and reported, and the rest of the read stands. The official
 * client would refuse the whole list on the same row; we keep trading on what we can read and say what
 * we dropped.
 *
 * Reporting: `collectDroppedItems(run)` runs a synchronous parse and returns, beside its result, one
 * line per dropped row (`path: reason`, never the value). Parsing is synchronous, so a module-level
 * collector cannot interleave between calls.
 */
import { z } from 'zod'

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

function issueLine(index: number, error: z.ZodError): string {
  const first = error.issues[0]
  const where = [String(index), ...(first?.path ?? []).map(String)].join('.')
  return `[${where}]: ${first?.message ?? 'invalid'}`
}

/** An array whose unreadable items are dropped (and reported to the current collector). */
export function tolerantArray<T extends z.ZodType>(item: T) {
  return z.array(z.unknown()).transform((rows): z.output<T>[] => {
    const out: z.output<T>[] = []
    for (let i = 0; i < rows.length; i++) {
      const r = item.safeParse(rows[i])
      if (r.success) out.push(r.data)
      else collector?.push(issueLine(i, r.error))
    }
    return out
  })
}

/**
 * Per-item tolerance for lists the venue sends: one row the project cannot read (a price that is no
 * number, a missing field) is dropped and reported, and the rest of the read stands. The official
 * client would refuse the whole list on the same row; we keep trading on what we can read and say what
 * we dropped.
 *
 * Reporting: each dropped row goes to http/droppedRows.ts, whose `collectDroppedItems(run)` returns
 * them beside the parse result (`[index.field]: reason`, never the value).
 */
import { z } from 'zod'
import { reportDroppedRow } from '../../http/droppedRows.ts'

export { collectDroppedItems } from '../../http/droppedRows.ts'

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
      else reportDroppedRow(issueLine(i, r.error))
    }
    return out
  })
}

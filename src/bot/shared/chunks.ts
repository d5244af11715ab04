/**
 * Fans work out over many instruments in chunks, yielding to the event loop between chunks, so the
 * commands of the first chunk are batched and signed while later ones are still being planned. Nine
 * instruments of up to two quotes each fill one 19-order batch (request weight 1).
 */
export const ROUTE_CHUNK = 9

export async function inChunks<T>(items: readonly T[], each: (item: T) => void): Promise<void> {
  for (let i = 0; i < items.length; i += ROUTE_CHUNK) {
    if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve))
    for (const item of items.slice(i, i + ROUTE_CHUNK)) each(item)
  }
}

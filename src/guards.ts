/**
 * Narrowing helpers that replace casts: membership in a literal list, the fields of an unknown thrown
 * value, and a typed-array read. Each checks at run time what a cast would only assert.
 */

/** `v` is one of `list` (a readonly tuple of literals): narrows to the list's element type. */
export function isOneOf<T extends string>(list: readonly T[], v: unknown): v is T {
  return list.some((x) => x === v)
}

/** The `message` of an Error, else the thrown value as text. */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e)
}

/** A field of an unknown value (a thrown error's `code`, a module's export), when it is an object. */
export function fieldOf(e: unknown, key: string): unknown {
  return typeof e === 'object' && e !== null ? Reflect.get(e, key) : undefined
}

/** `a[i]` of a zero-filled typed array: in range it is always a number. */
export function slotOf(a: Float64Array, i: number): number {
  return a[i] ?? 0
}

/** The port of a server listening on TCP (`server.address()` after `listen`); a pipe or a closed server is an error. */
export function tcpPort(address: { port: number } | string | null): number {
  if (address === null || typeof address === 'string')
    throw new Error(`not listening on a TCP port: ${address}`)
  return address.port
}

/**
 * `Object.entries` of a record whose keys are exactly `K` (a literal object typed by a mapped type): the
 * one place that asserts what `Object.entries` cannot know.
 */
export function entriesOf<K extends string, V>(o: Readonly<Record<K, V>>): [K, V][] {
  return Object.entries(o) as [K, V][]
}

/** Lets the process exit with this timer pending, when the handle is Node's (an injected clock's may not be). */
export function unrefTimer(handle: unknown): void {
  const unref = fieldOf(handle, 'unref')
  if (typeof unref === 'function') unref.call(handle)
}

/** `0x`-prefixed text: all that viem's `Hex` type (`0x${string}`) states; the digits are checked where they matter. */
export function isHexText(v: unknown): v is `0x${string}` {
  return typeof v === 'string' && v.startsWith('0x')
}

/**
 * A reader of a public socket's frames besides its client (a recording: `run --record`). It gets
 * each frame's text as received, stamped with its receive time, before the client parses it; pushes
 * on the channels it alone wanted skip the client's parsing and events entirely, so recording the
 * stream the bot receives costs the bot's thread a channel peek and an array push per frame. Private
 * sockets never have a tap: their frames carry the account.
 */

export interface FrameTap {
  /** Each frame of a public socket, as received (text), with its receive time and its channel if it names one. */
  frame(text: string, receivedAt: number, channel: string | undefined): void
  /** True for a channel only the tap wanted: its pushes go to the tap alone. */
  owns(channel: string): boolean
}

/** A tap on a client's public sockets that may ask for channels of its own (`run --record`). */
export interface StreamTap {
  /**
   * Told once, before subscribing, the caller's public channels and traded instruments; returns the
   * channels it wants added to the caller's sockets (their pushes then go to the tap alone).
   */
  attach(caller: { channels: readonly string[]; traded: readonly number[] }): readonly string[]
  /** Each public frame as received, with its receive time and channel (`peekChannel`). */
  frame(text: string, receivedAt: number, channel: string | undefined): void
}

/** How far into a frame its channel key is looked for (the envelope's keys come before its data). */
const PEEK_CHARS = 96
const CH_KEY = '"ch":"'

/**
 * The channel of a push frame without parsing it: the `"ch":"…"` key near its start, else
 * undefined (a response, an error, or an envelope spelled otherwise: those take the parsed path).
 * Channel names hold no quote or backslash (`kind::id`), so the value ends at the next quote.
 */
export function peekChannel(text: string): string | undefined {
  const at = (text.length > 2 * PEEK_CHARS ? text.slice(0, PEEK_CHARS + CH_KEY.length) : text).indexOf(CH_KEY)
  if (at < 0 || at > PEEK_CHARS) return undefined
  const from = at + CH_KEY.length
  const end = text.indexOf('"', from)
  if (end < 0 || end - from > PEEK_CHARS) return undefined
  const ch = text.slice(from, end)
  return ch.includes('\\') ? undefined : ch
}

/** Hands a frame to the tap; true when it is a push on a channel the tap alone wanted (the client skips it). */
export function tapFrame(tap: FrameTap, text: string, receivedAt: number): boolean {
  const ch = peekChannel(text)
  tap.frame(text, receivedAt, ch)
  return ch !== undefined && tap.owns(ch)
}

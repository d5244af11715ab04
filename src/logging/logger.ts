/**
 * The root pino logger. Secrets are kept out twice: by key paths (`redact`) and by value — every
 * known secret string is scrubbed from each serialized line before it reaches the destination, so a
 * secret that slips into a message or an error's text is still never written.
 */
import { createRequire } from 'node:module'
import pino, { type DestinationStream, type Logger } from 'pino'
import type PinoPretty from 'pino-pretty'

export type { Logger }

export interface LoggerOptions {
  level?: string | undefined
  pretty?: 'auto' | 'always' | 'never' | undefined
  /** Where lines go (default stdout). Tests pass a collecting stream. */
  destination?: DestinationStream | undefined
  /** Secret values to scrub from every line (keys, API secrets, webhook URLs); a bag can grow later. */
  secrets?: SecretBag | readonly (string | undefined)[] | undefined
  /** Whether stdout is a terminal (for `pretty: auto`). */
  isTty?: boolean | undefined
}

/** Key paths whose values are always replaced. */
export const REDACT_PATHS = [
  'secret',
  '*.secret',
  'privateKey',
  '*.privateKey',
  'apiSecret',
  '*.apiSecret',
  'headers["polymarket-secret"]',
  'headers["service-secret"]',
  '*.headers["polymarket-secret"]',
  '*.headers["service-secret"]',
  'webhookUrl',
  '*.webhookUrl',
]

/** Each logger of a `createLogger` root (the root, and every child through pino's `onChild`) → that root. */
const roots = new WeakMap<Logger, Logger>()

/**
 * A part's logger: the parent's bindings with `component` set to this part's name. pino writes a
 * rebound key once per binding (by design, for speed), so `parent.child({ component })` under a parent
 * that already names one wrote `"component":"bot","component":"ops"`; this builds the child from the
 * root instead. A parent pino made some other way (a test's) gets a plain child.
 */
export function componentLogger(parent: Logger, component: string): Logger {
  const root = roots.get(parent)
  if (root === undefined) return parent.child({ component })
  const { component: _replaced, ...kept } = parent.bindings()
  return root.child({ ...kept, component })
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const usePretty = options.pretty === 'always' || (options.pretty !== 'never' && (options.isTty ?? false))
  const base: DestinationStream =
    options.destination ??
    (usePretty
      ? loadPretty()({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', sync: true })
      : pino.destination({ dest: 1, sync: false }))
  const bag = options.secrets instanceof SecretBag ? options.secrets : new SecretBag(options.secrets ?? [])
  const dest = scrubbingStream(base, bag)
  const root = pino(
    {
      level: options.level ?? 'info',
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      base: null,
      serializers: { err: pino.stdSerializers.err },
      // Every descendant (however made) knows the root, for `componentLogger`.
      onChild: (child) => roots.set(child, root),
    },
    dest,
  )
  roots.set(root, root)
  return root
}

/**
 * pino-pretty, loaded only when a terminal reads the log: a service's log (a pipe, a file, the image)
 * is JSON, and pretty's modules (colorette, dateformat, fast-copy, …) cost ~1 MB of heap in every run.
 */
function loadPretty(): typeof PinoPretty {
  const load: (id: string) => typeof PinoPretty = createRequire(import.meta.url)
  return load('pino-pretty')
}

/**
 * The secret values known to this process, and the one scrubber every exit uses (issue 34): the log
 * (`scrubbingStream`), the ops server's every reply and event stream, the alert hub before any sink
 * (webhook, journal, `/status`), reports. Secrets made at run time (a dry-run's generated keys, the
 * proxy secret returned by createProxy) are added as they appear; every exit scrubs them from then on.
 *
 * Registering a secret is one call: `bag.register(value)` (a URL also registers its password, its
 * token-like path segments and query values).
 */
export class SecretBag implements Scrubber {
  #needles: string[] = []
  constructor(initial: readonly (string | undefined)[] = []) {
    for (const s of initial) this.register(s)
  }
  /**
   * Registers a configured secret: the value itself (see `add`) and, for a URL, the parts an error or
   * a library may print alone: its password (raw and decoded; a short one only as `:password@`), its
   * user with the password, token-like path segments (a webhook's token, Telegram's `bot<token>`) and
   * query values.
   */
  register(secret: string | undefined): void {
    this.add(secret)
    if (typeof secret !== 'string') return
    for (const part of urlSecretParts(secret)) {
      if (part.length >= 8) this.add(part)
      else this.#addForms([part])
    }
  }
  /**
   * Adds a secret and the forms a library might print it in: JSON-escaped, lower-case; for hex, also
   * un-prefixed, upper-case, decimal (viem prints a bad key as a number) and base64 of its bytes.
   * Short values are ignored.
   */
  add(secret: string | undefined): void {
    if (typeof secret !== 'string' || secret.length < 8) return
    const forms = [secret, JSON.stringify(secret).slice(1, -1), secret.toLowerCase()]
    if (/^0x[0-9a-fA-F]{16,}$/.test(secret)) forms.push(...hexForms(secret.slice(2)))
    this.#addForms(forms)
  }
  #addForms(forms: readonly string[]): void {
    // Longest first, so a form that contains another is replaced whole.
    this.#needles = [...new Set([...this.#needles, ...forms.filter((f) => f.length > 0)])].sort(
      (a, b) => b.length - a.length,
    )
  }
  get needles(): readonly string[] {
    return this.#needles
  }
  /** Replaces every known secret in `text`. */
  scrub(text: string): string {
    let out = text
    for (const n of this.#needles) if (out.includes(n)) out = out.split(n).join('[redacted]')
    return out
  }
}

/** Anything that takes known secrets out of a text (the `SecretBag`; tests may pass another). */
export interface Scrubber {
  scrub(text: string): string
}

/**
 * The parts of a URL secret that may be printed without the rest: a password (raw, decoded, and as
 * `:password@` which is safe to scrub however short), `user:password`, a web address's path segments
 * of 16 or more characters (and such a segment without a leading `bot`, Telegram's form) and query
 * values of 8 or more. Not a URL: none.
 */
export function urlSecretParts(value: string): string[] {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return []
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return []
  }
  const parts: string[] = []
  const decode = (s: string): string => {
    try {
      return decodeURIComponent(s)
    } catch {
      return s
    }
  }
  if (url.password !== '') {
    const raw = url.password
    parts.push(`:${raw}@`, raw, decode(raw))
    if (url.username !== '') parts.push(`${url.username}:${raw}`, `${decode(url.username)}:${decode(raw)}`)
  }
  // A web address's path may be its secret (a webhook's token); a database's names a database.
  if (url.protocol === 'http:' || url.protocol === 'https:')
    for (const segment of url.pathname.split('/')) {
      const s = decode(segment)
      if (s.length >= 16) parts.push(segment, s)
      if (/^bot.{16,}$/.test(s)) parts.push(s.slice(3))
    }
  for (const [, v] of url.searchParams) if (v.length >= 8) parts.push(v)
  return [...new Set(parts)].filter((p) => p.length >= 8 || p.startsWith(':'))
}

/** Other spellings of a hex secret; a form shorter than 16 characters would scrub innocent text. */
function hexForms(hex: string): string[] {
  const forms = [hex, hex.toLowerCase(), hex.toUpperCase(), BigInt(`0x${hex}`).toString()]
  if (hex.length % 2 === 0) {
    const bytes = Buffer.from(hex, 'hex')
    forms.push(
      bytes.toString('base64'),
      bytes.toString('base64url'),
      bytes.toString('base64').replace(/=+$/, ''),
    )
  }
  return forms.filter((f) => f.length >= 16)
}

/** Wraps a destination so every occurrence of a known secret (and its escaped forms) is replaced. */
export function scrubbingStream(dest: DestinationStream, secrets: SecretBag): DestinationStream {
  return {
    write(line: string): void {
      dest.write(secrets.needles.length > 0 ? secrets.scrub(line) : line)
    },
  }
}

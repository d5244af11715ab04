/**
 * The root pino logger. Secrets are kept out twice: by key paths (`redact`) and by value — every
 * known secret string is scrubbed from each serialized line before it reaches the destination, so a
 * secret that slips into a message or an error's text is still never written.
 */
import pino, { type DestinationStream, type Logger } from 'pino'
import pretty from 'pino-pretty'

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

export function createLogger(options: LoggerOptions = {}): Logger {
  const usePretty = options.pretty === 'always' || (options.pretty !== 'never' && (options.isTty ?? false))
  const base: DestinationStream =
    options.destination ??
    (usePretty
      ? pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', sync: true })
      : pino.destination({ dest: 1, sync: false }))
  const bag = options.secrets instanceof SecretBag ? options.secrets : new SecretBag(options.secrets ?? [])
  const dest = scrubbingStream(base, bag)
  return pino(
    {
      level: options.level ?? 'info',
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      base: null,
      serializers: { err: pino.stdSerializers.err },
    },
    dest,
  )
}

/**
 * The secret values known to this process. Secrets made at run time (a dry-run's generated keys, the
 * proxy secret returned by createProxy) are added as they appear; the logger scrubs them from then on.
 */
export class SecretBag {
  #needles: string[] = []
  constructor(initial: readonly (string | undefined)[] = []) {
    for (const s of initial) this.add(s)
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
    // Longest first, so a form that contains another is replaced whole.
    this.#needles = [...new Set([...this.#needles, ...forms])].sort((a, b) => b.length - a.length)
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

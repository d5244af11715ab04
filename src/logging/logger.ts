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
  /** Secret values to scrub from every line (keys, API secrets, webhook URLs). */
  secrets?: readonly (string | undefined)[] | undefined
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
  const secrets = (options.secrets ?? []).filter((s): s is string => typeof s === 'string' && s.length >= 8)
  const dest = secrets.length > 0 ? scrubbingStream(base, secrets) : base
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

/** Wraps a destination so every occurrence of a secret (and its JSON-escaped form) is replaced. */
export function scrubbingStream(dest: DestinationStream, secrets: readonly string[]): DestinationStream {
  const needles = [...new Set(secrets.flatMap((s) => [s, JSON.stringify(s).slice(1, -1), s.toLowerCase()]))]
  return {
    write(line: string): void {
      let out = line
      for (const n of needles) if (out.includes(n)) out = out.split(n).join('[redacted]')
      dest.write(out)
    },
  }
}

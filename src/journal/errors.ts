/**
 * The journal's errors. A database that cannot be opened, written or migrated at start is a
 * configuration problem (the CLI exits 2); its message names the file or the URL without a password.
 */
import { ConfigError, describeError } from '../errors.ts'

/** A ConfigError (name and exit code 2 kept) the journal raises; `instanceof` tells it apart. */
export class JournalConfigError extends ConfigError {
  constructor(message: string, cause?: unknown) {
    super(message, cause === undefined ? [] : [redactUrls(describeError(cause))], { cause })
  }
}

/** `postgres://user:pw@host/db` → `postgres://user:***@host/db`; anything else unchanged. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url)
    if (u.password !== '') u.password = '***'
    return u.toString()
  } catch {
    return url.replace(/\/\/([^:/@\s]+):[^@\s]*@/g, '//$1:***@')
  }
}

/** Scrubs passwords of any URLs inside a message (driver errors sometimes echo the connection string). */
export function redactUrls(text: string): string {
  return text.replace(/\/\/([^:/@\s]+):[^@\s]*@/g, '//$1:***@')
}

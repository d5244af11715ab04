/**
 * What every catalogue endpoint file shares: per-call options, the catalogue's error-body parser for
 * `callJson` (`{type, error}` → code = type, message = error) and the conversion of a params schema
 * failure into `InputValidationError`.
 */
import type { z } from 'zod'
import { InputValidationError } from '../../errors.ts'
import { type ErrorBodyParser, formatZodIssues, type RetryPolicy } from '../../http/callJson.ts'
import { CatalogueErrorBodySchema } from '../schemas/responses.ts'

export interface CatalogueCallOptions {
  signal?: AbortSignal | undefined
  /** Read retry policy; defaults to callJson's READ_RETRY (transport failures and 5xx). */
  retry?: RetryPolicy | undefined
}

/** Reads the catalogue error body `{type, error}`; undefined when the body has another shape. */
export const parseCatalogueErrorBody: ErrorBodyParser = (body) => {
  const parsed = CatalogueErrorBodySchema.safeParse(body)
  if (!parsed.success) return undefined
  return { code: parsed.data.type, message: parsed.data.error }
}

/** Parses `input` with `schema` or throws `InputValidationError` naming every bad field. */
export function parseInput<S extends z.ZodType>(operation: string, schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input)
  if (parsed.success) return parsed.data
  const issues = formatZodIssues(parsed.error)
  throw new InputValidationError(`invalid ${operation} input: ${issues[0] ?? 'invalid'}`, {
    details: issues.slice(1),
  })
}

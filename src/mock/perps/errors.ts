/**
 * The mock venue's rejections. Core methods throw `MockRejection` with the HTTP status and the wire
 * `error` text; the handler turns it into `{status:"err", error}` (an array for modifyOrders) plus
 * `Retry-After` for the token-bucket 429s.
 */
import { BotError } from '../../errors.ts'

export type RejectionStatus = 400 | 401 | 404 | 422 | 429

export class MockRejection extends BotError {
  override name = 'MockRejection' as const
  readonly status: RejectionStatus
  /** The wire `error` value (snake_case id, or human-readable text for 400). */
  readonly code: string
  /** Whole seconds for `Retry-After` (token-bucket 429s only). */
  readonly retryAfterSeconds: number | undefined

  constructor(status: RejectionStatus, code: string, retryAfterSeconds?: number | undefined) {
    super(`mock perps venue rejected with ${status} ${code}`)
    this.status = status
    this.code = code
    this.retryAfterSeconds = retryAfterSeconds
  }
}

export const badRequest = (text: string): MockRejection => new MockRejection(400, text)
export const unauthorized = (): MockRejection => new MockRejection(401, 'unauthorized')
export const unprocessable = (code: string): MockRejection => new MockRejection(422, code)

/** The validation texts the real gateway uses (protocol-notes c.3), in one place. */
export const TEXT = {
  invalidSignature: 'invalid signature',
  signatureExpired: 'signature expired',
  accountNotFound: 'account not found for proxy',
  noOrders: 'no orders provided',
  commandExpired: 'command expired',
  expiryTooFar: 'command expiry too far in future',
  fokPostOnly: 'FOK orders cannot be post-only',
  iocPostOnly: 'IOC orders cannot be post-only',
  gtcNeedsPrice: 'GTC orders require a price',
  priceZero: 'price cannot be zero',
  coidZero: 'client order id cannot be all zeros',
  priceDecimals: 'price exceeds allowed decimal places',
  priceSigFigs: 'price exceeds allowed significant figures',
  qtyPositive: 'quantity must be positive',
  qtyDecimals: 'quantity exceeds allowed decimal places',
  qtySigFigs: 'quantity exceeds allowed significant figures',
} as const

/**
 * Whether the venue accepts our `modifyOrders` signature. Its signed layout is inferred (the official
 * client has no modify), so a venue that signs it differently refuses every modify as a bad signature
 * while creates and cancels verify. Watching batch outcomes tells the two apart: a modify batch refused
 * at request level with a signature error, while the latest create or cancel batch verified (the venue
 * answered it per order), switches the bot to repricing by cancel + create for the rest of the run.
 * A modify that verifies clears the suspicion. Pure state; the order path feeds it and reads `mode`.
 */
import { RequestRejectedError } from '../../errors.ts'

export type ModifyMode = 'modify' | 'cancel+create'

export interface ModifyCapabilityState {
  mode: ModifyMode
  /** Modify batches refused as a bad signature. */
  signatureRejections: number
  /** When the fallback started (undefined while modify is used). */
  since: number | undefined
  /** The refusal that led to the fallback. */
  reason: string | undefined
}

/** What the order path reports per settled command batch. */
export type BatchVerdict =
  | { type: 'modifyOrders' | 'createOrders' | 'cancelOrders'; outcome: 'ok' }
  | { type: 'modifyOrders' | 'createOrders' | 'cancelOrders'; outcome: 'error'; error: unknown }

/**
 * A request-level refusal of the signature: a 400/401 naming the signature or an account the
 * recovered signer does not map to (what a venue answers when it hashed a different layout).
 */
export function isSignatureRejection(e: unknown): e is RequestRejectedError {
  return (
    e instanceof RequestRejectedError &&
    (e.status === 400 || e.status === 401) &&
    /signature|account not found/i.test(`${e.code} ${e.serverMessage ?? ''}`)
  )
}

export class ModifyCapability {
  #mode: ModifyMode = 'modify'
  #rejections = 0
  #since: number | undefined
  #reason: string | undefined
  /** A modify batch was refused as a bad signature and no modify has verified since. */
  #suspect: string | undefined
  /** The latest create/cancel batch verified (true), was refused as a bad signature (false), or none yet. */
  #othersVerify: boolean | undefined

  get mode(): ModifyMode {
    return this.#mode
  }

  /**
   * Records a settled batch. Returns true exactly once: when this observation switches the bot to
   * the fallback.
   */
  observe(batch: BatchVerdict, now: number): boolean {
    if (this.#mode !== 'modify') return false
    const refused = batch.outcome === 'error' && isSignatureRejection(batch.error) ? batch.error : undefined
    if (batch.type === 'modifyOrders') {
      if (batch.outcome === 'ok') this.#suspect = undefined
      else if (refused) {
        this.#rejections += 1
        this.#suspect = refused.message
      }
    } else if (batch.outcome === 'ok') this.#othersVerify = true
    else if (refused) this.#othersVerify = false
    if (this.#suspect === undefined || this.#othersVerify !== true) return false
    this.#mode = 'cancel+create'
    this.#since = now
    this.#reason = this.#suspect
    return true
  }

  state(): ModifyCapabilityState {
    return {
      mode: this.#mode,
      signatureRejections: this.#rejections,
      since: this.#since,
      reason: this.#reason,
    }
  }
}

/**
 * A proxy key that can be replaced while the bot runs (issue 35, key rotation without downtime): one
 * object is the perps client's command signer and its header credentials, and the stream's; every
 * request reads the current key when it is signed or sent, so a switch takes effect for the next
 * command, and a command signed just before it still verifies (the old key stays valid on the venue
 * until it is revoked, after the switch).
 */
import type {
  ProxyCommandSigner,
  SignCommandOptions,
  SignedCommand,
  StampedCommand,
} from '../signing/commandSigner.ts'
import type { BuiltOp } from '../signing/ops.ts'

/** One proxy key: its signer and its validated header pair (a `ProxyCredentials`). */
export interface ProxyKey {
  signer: ProxyCommandSigner
  credentials: { readonly proxy: string; readonly secret: string }
}

export class RotatingProxyKey {
  #current: ProxyKey
  #switches = 0

  constructor(initial: ProxyKey) {
    this.#current = initial
  }

  /** The current proxy address (the signer's). */
  get address(): `0x${string}` {
    return this.#current.signer.address
  }

  /** The header pair's proxy (the stream's `auth` and the REST headers read it per use). */
  get proxy(): string {
    return this.#current.credentials.proxy
  }

  get secret(): string {
    return this.#current.credentials.secret
  }

  /** Signs with the current key. */
  signCommand<TOp extends { type: string }>(
    built: BuiltOp<TOp>,
    options?: SignCommandOptions,
  ): Promise<SignedCommand<TOp>> {
    return this.#current.signer.signCommand(built, options)
  }

  /** Stamps with the current key without signing (typed commands), when that key can. */
  stampCommand<TOp extends { type: string }>(
    built: BuiltOp<TOp>,
    options?: SignCommandOptions,
  ): StampedCommand<TOp> | undefined {
    return this.#current.signer.stampCommand?.(built, options)
  }

  /** Switches to `next`; returns the key it replaced (to revoke once the switch is confirmed). */
  switchTo(next: ProxyKey): ProxyKey {
    const previous = this.#current
    this.#current = next
    this.#switches++
    return previous
  }

  get switches(): number {
    return this.#switches
  }

  /** Logged or serialized: the proxy only, never the secret. */
  toJSON(): { proxy: string } {
    return { proxy: this.proxy }
  }
}

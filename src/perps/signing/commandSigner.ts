/**
 * `CommandSigner`: one secp256k1 key (a proxy key for trading ops, the owner EOA for createProxy)
 * that stamps commands with a unique salt and a venue-clock ts and signs them as EIP-712 typed data.
 * The key lives only inside its digest signer's closure (digestSigner.ts): it is never stored as a
 * string, and `toJSON`/`util.inspect`/`toString` show only the address.
 */
import { inspect } from 'node:util'
import type { Address, Hex } from 'viem'
import { type Clock, OffsetClock } from '../../clock.ts'
import { InputValidationError, SigningError } from '../../errors.ts'
import type { Random } from '../../random.ts'
import { createDigestSigner, type DigestSigner } from './digestSigner.ts'
import { DEFAULT_PERPS_DOMAIN, type PerpsDomain, perpsDomain } from './domain.ts'
import type { BuiltOp } from './ops.ts'
import { SaltSource } from './salt.ts'
import { defaultExp, validateExp } from './timing.ts'
import {
  type CreateProxyMessage,
  createProxyDigest,
  opDigestBytes,
  type SignedOp,
  type Stamp,
} from './typedData.ts'
import {
  COLLATERAL_TOKEN,
  PERPS_DEPOSIT_CONTRACT,
  type WithdrawBody,
  type WithdrawMessage,
  withdrawBody,
  withdrawDigest,
} from './withdraw.ts'

export interface CommandSignerOptions {
  /** 32-byte hex secp256k1 key, with or without `0x`. */
  privateKey: string
  /** The venue-corrected clock (an `OffsetClock`); ts is its `now()` floored to whole ms. */
  clock: Clock
  /** Salt source; a bare `Random` gets a private `SaltSource`. Share one source between signers of one key. */
  salts: SaltSource | Random
  domain?: PerpsDomain | undefined
}

/**
 * A stamped op, not signed: `{op, salt, ts, exp?}`. What an in-process venue takes as a typed value
 * (the signer vouched for by the link, src/perps/typedCommands.ts), and what a signature covers.
 */
export interface StampedCommand<TOp> {
  op: TOp
  salt: number
  ts: number
  exp?: number | undefined
}

/** The JSON envelope of a signed op: `{op, sig, salt, ts, exp?}`. */
export interface SignedCommand<TOp> extends StampedCommand<TOp> {
  sig: Hex
}

export interface SignCommandOptions {
  /** Absolute expiry, Unix ms; must be in (ts, ts + 5000]. */
  exp?: number | undefined
  /** Relative expiry: exp = ts + min(expAfterMs, 5000). Exclusive with `exp`. */
  expAfterMs?: number | undefined
  /**
   * While the venue clock is refused (untrusted), stamp with the local clock instead of refusing to
   * sign. Only the exit policy asks for this: its cancel-all must go out whatever the venue's time
   * endpoint says; every other command is still refused.
   */
  localClockIfUntrusted?: boolean | undefined
}

export interface CreateProxyArgs {
  owner: string
  proxy: string
  /** Proxy expiry, Unix ms. */
  expiry: number
}

/** The body of `POST /v1/account/proxy`. `label` and `code` are not signed. */
export interface CreateProxyBody {
  op: { type: 'createProxy'; args: CreateProxyArgs }
  sig: Hex
  salt: number
  ts: number
  label?: string | undefined
  code?: string | undefined
}

export interface CreateProxyInput {
  proxy: string
  expiry: number
  label?: string | undefined
  /** Referral/invite code. */
  code?: string | undefined
}

/** A proxy key as the perps client uses it: an address that signs ops (`CommandSigner`, a rotating key). */
export interface ProxyCommandSigner extends Pick<CommandSigner, 'address' | 'signCommand'> {
  /**
   * Stamps an op as `signCommand` would, without signing: a typed command for an in-process venue
   * (perps/typedCommands.ts). Absent, or undefined, when this key only signs.
   */
  stampCommand?<TOp extends { type: string }>(
    built: BuiltOp<TOp>,
    options?: SignCommandOptions,
  ): StampedCommand<TOp> | undefined
}

export class CommandSigner {
  readonly address: Address
  readonly domain: PerpsDomain
  readonly #key: DigestSigner
  readonly #clock: Clock
  readonly #salts: SaltSource

  /** @throws {@link SigningError} for missing or invalid key material (the message never contains it). */
  constructor(options: CommandSignerOptions) {
    this.#key = createDigestSigner(options.privateKey)
    this.address = this.#key.address
    this.domain = options.domain === undefined ? { ...DEFAULT_PERPS_DOMAIN } : perpsDomain(options.domain)
    this.#clock = options.clock
    this.#salts = options.salts instanceof SaltSource ? options.salts : new SaltSource(options.salts)
  }

  /** A fresh stamp: ts from the clock, a salt this signer has not used recently. */
  stamp(): Stamp {
    const ts = this.#now()
    return { salt: this.#salts.next(this.address, ts), ts }
  }

  /**
   * Signs a positional op with an explicit salt and ts.
   * @throws {@link InputValidationError} for a malformed op, salt or ts; {@link SigningError} if signing fails.
   */
  async signOp(signedOp: SignedOp, stamp: Stamp): Promise<Hex> {
    // The digest of the fixed Op struct, signed as a hash: the same bytes as viem's `signTypedData`
    // (tested), without its generic typed-data encoder on the tick-to-trade path.
    return this.#key.sign(opDigestBytes(this.domain, signedOp, stamp))
  }

  /**
   * Stamps and signs a built op and returns the JSON envelope `{op, sig, salt, ts, exp?}`.
   * @throws {@link InputValidationError} when exp is out of range; {@link SigningError} if signing fails.
   */
  async signCommand<TOp extends { type: string }>(
    built: BuiltOp<TOp>,
    options: SignCommandOptions = {},
  ): Promise<SignedCommand<TOp>> {
    const stamped = this.stampCommand(built, options)
    // The digest signer is synchronous: signed in this turn, not after `signOp`'s promise.
    const sig = this.#key.sign(opDigestBytes(this.domain, built.signedOp, stamped))
    const command: SignedCommand<TOp> = { op: stamped.op, sig, salt: stamped.salt, ts: stamped.ts }
    if (stamped.exp !== undefined) command.exp = stamped.exp
    return command
  }

  /**
   * Stamps a built op as `signCommand` does (ts, exp, a fresh salt), without signing it: the typed
   * command an in-process venue takes from this signer.
   * @throws {@link InputValidationError} when exp is out of range; {@link ClockSkewError} while untrusted.
   */
  stampCommand<TOp extends { type: string }>(
    built: BuiltOp<TOp>,
    options: SignCommandOptions = {},
  ): StampedCommand<TOp> {
    const ts = this.#now(options.localClockIfUntrusted === true)
    const exp = resolveExp(options, ts)
    const command: StampedCommand<TOp> = { op: built.op, salt: this.#salts.next(this.address, ts), ts }
    if (exp !== undefined) command.exp = exp
    return command
  }

  /**
   * Signs a withdrawal with this signer as the owner (the account), to `to` (default: the owner),
   * `ts` in seconds (withdraw.ts).
   * @throws {@link InputValidationError} for a non-positive amount; {@link SigningError} if signing fails.
   */
  async signWithdraw(input: {
    amount: bigint
    to?: Address | undefined
    token?: Address | undefined
    contract?: Address | undefined
  }): Promise<WithdrawBody> {
    const ts = Math.floor(this.#now() / 1000)
    const m: WithdrawMessage = {
      account: this.address,
      token: input.token ?? COLLATERAL_TOKEN,
      amount: input.amount,
      to: input.to ?? this.address,
      salt: this.#salts.next(this.address, ts),
      ts,
    }
    const sig = await this.#key.sign(withdrawDigest(this.domain, input.contract ?? PERPS_DEPOSIT_CONTRACT, m))
    return withdrawBody(m, sig)
  }

  /**
   * Signs a `CreateProxy(addr, exp, salt, ts)` struct with an explicit stamp (this signer is the owner).
   * @throws {@link InputValidationError}, {@link SigningError}
   */
  async signCreateProxyMessage(message: CreateProxyMessage, stamp: Stamp): Promise<Hex> {
    return this.#key.sign(createProxyDigest(this.domain, message, stamp))
  }

  /**
   * Builds and signs the createProxy body, with this signer as the owner.
   * @throws {@link InputValidationError} when the expiry is not after ts or the proxy is malformed.
   */
  async signCreateProxy(input: CreateProxyInput): Promise<CreateProxyBody> {
    const ts = this.#now()
    if (!Number.isSafeInteger(input.expiry) || input.expiry <= ts) {
      throw new InputValidationError(`proxy expiry ${input.expiry} must be an integer after now (${ts})`)
    }
    const stamp = { salt: this.#salts.next(this.address, ts), ts }
    const sig = await this.signCreateProxyMessage({ proxy: input.proxy, expiry: input.expiry }, stamp)
    const body: CreateProxyBody = {
      op: { type: 'createProxy', args: { owner: this.address, proxy: input.proxy, expiry: input.expiry } },
      sig,
      salt: stamp.salt,
      ts: stamp.ts,
    }
    if (input.label !== undefined) body.label = input.label
    if (input.code !== undefined) body.code = input.code
    return body
  }

  toJSON(): { address: Address } {
    return { address: this.address }
  }

  toString(): string {
    return `CommandSigner(${this.address})`
  }

  [inspect.custom](): string {
    return `CommandSigner { address: '${this.address}' }`
  }

  /**
   * @throws {@link ClockSkewError} while the venue clock is untrusted: a stale or future ts is never
   * signed (except with `localIfUntrusted`, the exit policy's local stamp).
   */
  #now(localIfUntrusted = false): number {
    if (this.#clock instanceof OffsetClock) {
      if (localIfUntrusted && !this.#clock.trusted) return Math.floor(this.#clock.localNow())
      this.#clock.assertTrusted()
    }
    return Math.floor(this.#clock.now())
  }
}

/** Factory form of `new CommandSigner(options)`. */
export function createCommandSigner(options: CommandSignerOptions): CommandSigner {
  return new CommandSigner(options)
}

function resolveExp(options: SignCommandOptions, ts: number): number | undefined {
  if (options.exp !== undefined && options.expAfterMs !== undefined) {
    throw new InputValidationError('pass either exp or expAfterMs, not both')
  }
  if (options.expAfterMs !== undefined) return defaultExp(ts, options.expAfterMs)
  if (options.exp !== undefined) validateExp(options.exp, ts)
  return options.exp
}

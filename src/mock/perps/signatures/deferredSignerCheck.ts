/**
 * A `SignerCheck` for the simulator: when the gate names a likely signer it answers with it at once
 * and recovers the signature on a worker thread (the machine's other core), so the mock's work per
 * command no longer waits for a public-key recovery (~0.2 ms, about a sixth of a simulated day).
 * Nothing goes unchecked: every deferred signature is recovered, and one whose signer is not the
 * one answered makes `failure()` say so, and the simulator stops the run (a report built on a command
 * the venue would have refused would be wrong). Without a likely signer, and the first time a signer
 * is seen, it recovers at once as the default does, so the addresses it answers with are spelt exactly
 * as recovery spells them and the mock's answers, hence the report, are the same either way.
 */
import { Worker } from 'node:worker_threads'
import type { Hex } from 'viem'
import { BotError } from '../../../errors.ts'
import { type SignerCheck, SignerRecovery } from './signerRecovery.ts'

/** A deferred signature whose signer was not the one the mock acted on. */
export class SignatureCheckError extends BotError {
  override name = 'SignatureCheckError'
  constructor(expected: string, got: string, digest: string) {
    super(
      `a command the simulated venue accepted as signed by ${expected} was signed by ${got} (digest ${digest}); the venue would have refused it, so the run stops`,
    )
  }
}

interface Answer {
  id: number
  checked: number
  bad: { digest: string; expected: string; got: string }[]
}

export interface DeferredSignerCheckOptions {
  /** Signatures sent to the worker in one message (default 64); `flush()` sends a partial batch. */
  batchSize?: number | undefined
}

export class DeferredSignerCheck implements SignerCheck {
  readonly #recovery = new SignerRecovery()
  /** Signers recovered here, by lower-case address, as recovery spells them. */
  readonly #known = new Map<string, string>()
  readonly #batchSize: number
  #batch: [string, string, string][] = []
  #nextId = 0
  #outstanding = 0
  #checked = 0
  #deferred = 0
  #failure: SignatureCheckError | undefined
  #idle: (() => void)[] = []
  #worker: Worker | undefined

  constructor(o: DeferredSignerCheckOptions = {}) {
    this.#batchSize = o.batchSize ?? 64
  }

  signer(digest: Hex, sig: Hex, expected?: string | undefined): string | undefined {
    const known = expected === undefined ? undefined : this.#known.get(expected.toLowerCase())
    if (known === undefined || !/^0x[0-9a-fA-F]{64}$/.test(digest) || !/^0x[0-9a-fA-F]{130}$/.test(sig)) {
      const got = this.#recovery.recover(digest, sig)
      if (got !== undefined) this.#known.set(got.toLowerCase(), got)
      return got
    }
    this.#deferred += 1
    this.#batch.push([digest, sig, known.toLowerCase()])
    if (this.#batch.length >= this.#batchSize) this.flush()
    return known
  }

  /** Sends the signatures waiting for a full batch to the worker. */
  flush(): void {
    if (this.#batch.length === 0) return
    const items = this.#batch
    this.#batch = []
    this.#outstanding += 1
    this.#workerThread().postMessage({ id: this.#nextId++, items })
  }

  /** The first deferred signature found wrong, if any (raised by `verified()`). */
  failure(): SignatureCheckError | undefined {
    return this.#failure
  }

  /** Flushes, waits until the worker has checked everything so far, then throws the first failure. */
  async verified(): Promise<void> {
    this.flush()
    if (this.#outstanding > 0) await new Promise<void>((resolve) => this.#idle.push(resolve))
    if (this.#failure) throw this.#failure
  }

  /** Signatures answered at once and checked later, and how many of those the worker has checked. */
  stats(): { deferred: number; checked: number } {
    return { deferred: this.#deferred, checked: this.#checked }
  }

  /** Ends the worker (unchecked signatures stay unchecked: call `verified()` first). */
  async close(): Promise<void> {
    const w = this.#worker
    this.#worker = undefined
    if (w) await w.terminate()
  }

  #workerThread(): Worker {
    if (this.#worker) return this.#worker
    const w = new Worker(new URL('./signerCheck.worker.mjs', import.meta.url))
    // The run's end waits on `verified()`, not on the worker: it never keeps the process alive.
    w.unref()
    w.on('message', (a: Answer) => this.#answer(a))
    w.on('error', (e) => {
      this.#failure ??= new SignatureCheckError('the worker', `an error (${e.message})`, '-')
      this.#outstanding = 0
      this.#wake()
    })
    this.#worker = w
    return w
  }

  #answer(a: Answer): void {
    this.#outstanding -= 1
    this.#checked += a.checked
    const first = a.bad[0]
    if (first && !this.#failure)
      this.#failure = new SignatureCheckError(first.expected, first.got, first.digest)
    if (this.#outstanding === 0) this.#wake()
  }

  #wake(): void {
    const waiting = this.#idle
    this.#idle = []
    for (const w of waiting) w()
  }
}

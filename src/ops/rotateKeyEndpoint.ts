/**
 * `POST /control/rotate-key` (issue 35): hands a new proxy key to the running bot. The body is
 * `{privateKey, secret}` of a proxy the owner has just registered (`perpbot rotate-key --live`); the
 * answer, once the bot signs with the new key and the old one has drained, names both addresses so the
 * caller revokes the old one. Authenticated like every ops endpoint but `/livez` (bearer token beyond
 * loopback); the secret is never logged or echoed. A small module of its own: the ops server mounts it
 * next to its other control endpoints.
 */
import { z } from 'zod'

export const ROTATE_KEY_PATH = '/control/rotate-key'

/** What the endpoint needs of the bot (its key rotation part, src/bot/startup/keyRotation.ts). */
export interface KeyRotationTarget {
  rotate(next: {
    privateKey: string
    secret: string
  }): Promise<{ previous: string; current: string; drainedMs: number }>
}

const Body = z.strictObject({
  privateKey: z.string().regex(/^(0x)?[0-9a-fA-F]{64}$/, 'expected a 32-byte hex private key'),
  secret: z.string().min(1).max(1024),
})

export interface ControlReply {
  status: number
  body: Record<string, unknown>
}

/** The reply to one POST: 200 switched, 400 a malformed body, 409 refused or already rotating. */
export async function rotateKeyReply(
  body: unknown,
  target: KeyRotationTarget | undefined,
): Promise<ControlReply> {
  if (target === undefined)
    return { status: 404, body: { error: 'not_found', reason: 'no key rotation in this process' } }
  const parsed = Body.safeParse(body)
  if (!parsed.success)
    return {
      status: 400,
      body: {
        error: 'bad_request',
        issues: parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`),
      },
    }
  try {
    const r = await target.rotate(parsed.data)
    return {
      status: 200,
      body: { status: 'ok', previous: r.previous, current: r.current, drainedMs: r.drainedMs },
    }
  } catch (e) {
    // The rotation's own message names the venue's reason, never the key or the secret.
    return {
      status: 409,
      body: { error: 'rotation_refused', reason: e instanceof Error ? e.message : String(e) },
    }
  }
}

import { describe, expect, it } from 'vitest'
import { bearerChecker, isLoopbackHost } from '../../src/ops/opsAuth.ts'

describe('isLoopbackHost', () => {
  it('accepts only addresses this host alone can reach', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', '::1', '[::1]', '::ffff:127.0.0.1'])
      expect(isLoopbackHost(h), h).toBe(true)
    for (const h of [
      '0.0.0.0',
      '::',
      '10.0.0.5',
      '192.168.1.2',
      'example.com',
      '128.0.0.1',
      '::ffff:10.0.0.1',
      '',
    ])
      expect(isLoopbackHost(h), h).toBe(false)
  })
})

describe('bearerChecker', () => {
  const check = bearerChecker('s3cret-token-0123456789')
  it('accepts exactly the token as a Bearer credential, case-insensitive scheme', () => {
    expect(check('Bearer s3cret-token-0123456789')).toBe(true)
    expect(check('bearer s3cret-token-0123456789')).toBe(true)
  })
  it('rejects a missing, empty, other-scheme, prefix or longer credential', () => {
    for (const h of [
      undefined,
      '',
      'Bearer',
      'Bearer ',
      'Basic s3cret-token-0123456789',
      's3cret-token-0123456789',
      'Bearer s3cret-token-012345678',
      'Bearer s3cret-token-01234567890',
      'Bearer s3cret-token-0123456789 extra',
    ])
      expect(check(h), String(h)).toBe(false)
  })
})

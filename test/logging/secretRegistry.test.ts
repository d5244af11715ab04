/**
 * The one scrubber's registry (issue 34): `register(value)` is the one call for a configured secret;
 * a URL also registers the parts an error may print alone (password, token path segments, query
 * values), and a short password only in its `:password@` form (safe to scrub).
 */
import { describe, expect, it } from 'vitest'
import { SecretBag, urlSecretParts } from '../../src/logging/logger.ts'

describe('SecretBag.register', () => {
  it('a Redis URL: its password is scrubbed wherever it appears, alone or in the URL', () => {
    const bag = new SecretBag()
    bag.register('redis://:s3cr3t-redis-pass@10.0.0.5:6379/0')
    expect(bag.scrub('AUTH failed for s3cr3t-redis-pass')).toBe('AUTH failed for [redacted]')
    expect(bag.scrub('connect redis://:s3cr3t-redis-pass@10.0.0.5:6379/0')).not.toContain('s3cr3t')
  })

  it('a short password only in its delimited form: innocent text keeps the word', () => {
    const bag = new SecretBag()
    bag.register('postgres://bot:pw12@127.0.0.1/j')
    expect(bag.scrub('postgres://bot:pw12@127.0.0.1/j')).not.toContain('pw12')
    expect(bag.scrub('the pw12 field')).toBe('the pw12 field')
  })

  it('webhook tokens in the path (Slack, Discord, Telegram bot<token>) and query values', () => {
    expect(
      urlSecretParts('https://api.telegram.org/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/sendMessage'),
    ).toContain('123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw')
    const bag = new SecretBag()
    bag.register(
      'https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX?sig=abcdefgh12',
    )
    expect(
      bag.scrub('posting to /services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX failed'),
    ).not.toContain('XXXXXXXXXXXXXXXXXXXXXXXX')
    expect(bag.scrub('sig abcdefgh12')).toBe('sig [redacted]')
  })

  it('a plain token is registered as itself; not a URL gives no parts', () => {
    const bag = new SecretBag()
    bag.register('bot-token-abcdef123456')
    expect(bag.scrub('x bot-token-abcdef123456 y')).toBe('x [redacted] y')
    expect(urlSecretParts('not a url')).toEqual([])
  })
})

describe('SecretBag.register: a database URL', () => {
  it('scrubs its password, not its database name', () => {
    const bag = new SecretBag()
    bag.register('postgres://perpbot:db-password-1@10.0.0.9:5432/perpbot_journal_production')
    expect(bag.scrub('journal at postgres://perpbot:***@10.0.0.9:5432/perpbot_journal_production')).toContain(
      'perpbot_journal_production',
    )
    expect(bag.scrub('auth failed: db-password-1')).toBe('auth failed: [redacted]')
  })
})

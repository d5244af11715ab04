import { describe, expect, it } from 'vitest'
import { encodingsOf, SecretsScanner } from '../../bench/secretsScan.ts'

// A made-up key (not a real wallet) and a made-up proxy secret and webhook URL.
const KEY = '0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318'
const SECRET = 'ps_8f2Kq/9vT+zR1wX=='
const WEBHOOK = 'http://127.0.0.1:9/hooks/whk-test-token-0123456789'

const scanner = (): SecretsScanner =>
  new SecretsScanner({ 'proxy key': KEY, 'proxy secret': SECRET, 'webhook URL': WEBHOOK })

describe('secrets scan', () => {
  it('finds nothing in clean text, and counts the bytes it read', () => {
    const s = scanner()
    const log = '{"level":30,"msg":"quoting BTC-USDC at 64000.5 – ok"}\n'
    s.scan('log', log)
    s.scan('metrics', 'perpbot_orders_total 12\n')
    const r = s.summary()
    expect(r.hits).toEqual([])
    expect(r.bySource.get('log')).toBe(Buffer.byteLength(log))
    expect(r.bytes).toBe(Buffer.byteLength(log) + 24)
  })

  it.each([
    ['the key as given', KEY],
    ['the key without 0x', KEY.slice(2)],
    ['the key in upper-case hex', KEY.slice(2).toUpperCase()],
    ['the key as 0x upper-case hex', `0x${KEY.slice(2).toUpperCase()}`],
    ['the key as base64', Buffer.from(KEY.slice(2), 'hex').toString('base64')],
    ['the key as base64url', Buffer.from(KEY.slice(2), 'hex').toString('base64url')],
    ['the key as a decimal number', BigInt(KEY).toString()],
    ['the secret URL-encoded', encodeURIComponent(SECRET)],
    ['the secret JSON-escaped inside a JSON string', JSON.stringify({ s: SECRET })],
    ['the webhook URL URL-encoded', encodeURIComponent(WEBHOOK)],
    ['the webhook URL', `posting to ${WEBHOOK}`],
  ])('finds a planted secret: %s', (_name, planted) => {
    const s = scanner()
    s.scan('log', `{"level":30,"msg":"innocent line"}\n`)
    s.scan('log', `{"level":50,"msg":"oops ${planted} leaked"}\n`)
    expect(s.summary().hits.length).toBeGreaterThan(0)
  })

  it('names the secret and the source of a hit, never the value', () => {
    const s = scanner()
    s.scan('ops:/status', `{"proxy":"${encodeURIComponent(SECRET)}"}`)
    const [hit] = s.summary().hits
    expect(hit).toEqual({ source: 'ops:/status', secret: 'proxy secret', encoding: 'url-encoded' })
    expect(JSON.stringify(s.summary().hits)).not.toContain(SECRET)
  })

  it('finds a secret split across two chunks of one stream, and reports it once', () => {
    const s = scanner()
    const line = `data: {"key":"${KEY}"}\n`
    const cut = line.indexOf(KEY) + 20
    s.scan('dashboard:sse', line.slice(0, cut))
    expect(s.summary().hits).toEqual([])
    s.scan('dashboard:sse', line.slice(cut))
    s.scan('dashboard:sse', 'data: {}\n')
    expect(s.summary().hits).toHaveLength(1)
  })

  it('does not join chunks of different streams', () => {
    const s = scanner()
    s.scan('log', KEY.slice(0, 30))
    s.scan('alert', KEY.slice(30))
    expect(s.summary().hits).toEqual([])
  })

  it('ignores forms too short to be told from innocent text', () => {
    expect(encodingsOf('short-secret').every((e) => e.text.length >= 16)).toBe(true)
    expect(new SecretsScanner({ tiny: 'abc' }).needleCount).toBe(0)
  })
})

import { describe, expect, it } from 'vitest'
import { keepableText, pushText, textKey } from '../../../src/perps/stream/rawPushText.ts'

describe("a push's envelope read from its text", () => {
  it("reads the venue's spelling: channel, ts, sq and the data's text", () => {
    expect(pushText('{"ch":"tickers::all","ts":1700000000000,"sq":42,"data":{"iid":7,"idx":"1.5"}}')).toEqual(
      {
        ch: 'tickers::all',
        ts: 1_700_000_000_000,
        sq: 42,
        data: '{"iid":7,"idx":"1.5"}',
      },
    )
  })

  it('anything spelled otherwise is left to the parser', () => {
    for (const text of [
      '{"ch":"x","sq":1,"ts":1,"data":{}}', // another key order
      '{"ch":"x","ts":-1,"sq":1,"data":{}}', // a negative number
      '{"ch":"x","ts":1.5,"sq":1,"data":{}}', // a fraction
      '{"ch":"x","ts":1,"sq":1234567890123456,"data":{}}', // past a safe integer's digits
      '{"ch":"x\\"y","ts":1,"sq":1,"data":{}}', // an escaped channel
      '{ "ch":"x","ts":1,"sq":1,"data":{}}', // a space
      '{"ch":"x","ts":1,"sq":1,"data":{}} ', // trailing space
      '{"id":1,"data":{"status":"ok"}}', // a response
    ])
      expect(pushText(text), text).toBeUndefined()
  })

  it('keeps only one small flat object, keyed by its instrument on a shared channel', () => {
    expect(keepableText('{"iid":1,"idx":"2"}')).toBe(true)
    expect(keepableText('{"iid":1,"klines":[1]}')).toBe(false)
    expect(keepableText('{"a":{"b":1}}')).toBe(false)
    // Data followed by more envelope keys is not one object.
    expect(keepableText('{"iid":1},"sq":5')).toBe(false)
    expect(keepableText(`{"s":"${'x'.repeat(2_000)}"}`)).toBe(false)
    expect(textKey('tickers::all', '{"iid":12,"idx":"2"}')).toBe(12)
    expect(textKey('tickers::all', '{"idx":"2"}')).toBe(-1)
    expect(textKey('bbo::12', '{"iid":12}')).toBe(-1)
  })
})

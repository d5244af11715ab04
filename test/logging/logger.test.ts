import { describe, expect, it } from 'vitest'
import { componentLogger, createLogger } from '../../src/logging/logger.ts'

function collector(): { lines: string[]; write: (s: string) => void } {
  const lines: string[] = []
  return { lines, write: (s: string) => lines.push(s) }
}

describe('createLogger', () => {
  it('loads pino-pretty only for a pretty log (a terminal), and then builds it', () => {
    // pino-pretty is required at this call (logger.ts loads it lazily): a broken load throws here.
    const log = createLogger({ pretty: 'always', level: 'silent' })
    expect(log.level).toBe('silent')
  })

  const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'

  it('redacts secret key paths', () => {
    const out = collector()
    const log = createLogger({ destination: out, pretty: 'never' })
    log.info({ secret: 'abc123456789', creds: { privateKey: '0xdeadbeefdeadbeef' } }, 'hello')
    const line = out.lines.join('')
    expect(line).not.toContain('abc123456789')
    expect(line).not.toContain('deadbeef')
    expect(line).toContain('[redacted]')
  })

  it('scrubs known secret values wherever they appear, including JSON-escaped', () => {
    const out = collector()
    const log = createLogger({ destination: out, pretty: 'never', secrets: [secret] })
    log.error({ err: new Error(`bad secret ${secret}`) }, `message with ${secret}`)
    log.info({ nested: { note: `x${secret}y` } }, 'ok')
    const text = out.lines.join('')
    expect(text).not.toContain(secret)
    expect(text).not.toContain(JSON.stringify(secret).slice(1, -1))
    expect(text.match(/\[redacted\]/g)?.length).toBeGreaterThanOrEqual(3)
  })

  it('writes JSON lines with child bindings', () => {
    const out = collector()
    const log = createLogger({ destination: out, pretty: 'never' }).child({ instrument: 'BTC-USDC' })
    log.info('quoting')
    const parsed = JSON.parse(out.lines[0] ?? '{}') as Record<string, unknown>
    expect(parsed.instrument).toBe('BTC-USDC')
    expect(parsed.msg).toBe('quoting')
  })
})

describe('SecretBag', () => {
  it('scrubs secrets added after the logger was created, including bare hex forms', async () => {
    const { SecretBag } = await import('../../src/logging/logger.ts')
    const lines: string[] = []
    const bag = new SecretBag()
    const log = createLogger({
      destination: { write: (s: string) => lines.push(s) },
      pretty: 'never',
      secrets: bag,
    })
    const key = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'
    log.info(`before ${key}`)
    bag.add(key)
    log.info(`after ${key} and ${key.slice(2).toUpperCase().toLowerCase()}`)
    expect(lines[0]).toContain(key)
    expect(lines[1]).not.toContain(key.slice(2))
  })

  it('scrubs a key printed as a decimal number, upper-case hex or base64 (how libraries print keys)', async () => {
    const { SecretBag } = await import('../../src/logging/logger.ts')
    const lines: string[] = []
    const key = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'
    const log = createLogger({
      destination: { write: (s: string) => lines.push(s) },
      pretty: 'never',
      secrets: new SecretBag([key]),
    })
    const bytes = Buffer.from(key.slice(2), 'hex')
    const forms = [
      BigInt(key).toString(),
      key.slice(2).toUpperCase(),
      bytes.toString('base64'),
      bytes.toString('base64url'),
    ]
    log.error({ err: new Error(`Private key ${forms[0]} is invalid`) }, `${forms.slice(1).join(' / ')}`)
    for (const f of forms) expect(lines.join('\n')).not.toContain(f)
    expect(lines.join('\n')).toContain('[redacted]')
  })
})

describe('componentLogger', () => {
  it('names one component per line, the innermost, and keeps the other bindings', () => {
    const out = collector()
    const bot = componentLogger(createLogger({ destination: out, pretty: 'never' }), 'bot')
    const ops = componentLogger(componentLogger(bot.child({ run: 'r1' }), 'startup'), 'ops')
    ops.info('listening')
    const line = out.lines.join('')
    expect(line.match(/"component"/g)).toHaveLength(1)
    expect(JSON.parse(line)).toMatchObject({ component: 'ops', run: 'r1', msg: 'listening' })
  })

  it('a plain pino child under it would repeat the key (what it avoids)', () => {
    const out = collector()
    const bot = componentLogger(createLogger({ destination: out, pretty: 'never' }), 'bot')
    bot.child({ component: 'ops' }).info('x')
    expect(out.lines.join('').match(/"component"/g)).toHaveLength(2)
  })
})

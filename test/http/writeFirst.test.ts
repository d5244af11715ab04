/**
 * Later turns that let the requests already made be written first (src/http/writeFirst.ts), on a
 * hand-run immediate queue (a turn is one `runTurn()`), and the transport's own report over loopback.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { createHttpTransport } from '../../src/http/transport.ts'
import { laterTurn, pendingWrites } from '../../src/http/writeFirst.ts'

/** A check phase by hand: `runTurn` runs what was booked before it (what it books waits for the next). */
function turns(): { immediate: (fn: () => void) => void; runTurn: () => void } {
  let booked: (() => void)[] = []
  return {
    immediate: (fn) => void booked.push(fn),
    runTurn: () => {
      const now = booked
      booked = []
      for (const fn of now) fn()
    },
  }
}

describe('laterTurn', () => {
  it('runs on the next turn when nothing waits to be written', () => {
    const t = turns()
    const later = laterTurn(() => false, t.immediate)
    const ran: string[] = []
    later(() => ran.push('work'))
    expect(ran).toEqual([])
    t.runTurn()
    expect(ran).toEqual(['work'])
  })

  it('waits one more turn, after the write, when a request made since is still waiting', () => {
    const t = turns()
    const writes = pendingWrites(t.immediate)
    const later = laterTurn(writes.writing, t.immediate)
    const ran: string[] = []
    // Booked first (the next chunk of routes), then the request its plans lead to (the write's turn).
    later(() => ran.push(`work (writing: ${writes.writing()})`))
    writes.made()
    t.immediate(() => ran.push('write'))
    t.runTurn()
    expect(ran).toEqual(['write'])
    expect(writes.writing()).toBe(false)
    t.runTurn()
    expect(ran).toEqual(['write', 'work (writing: false)'])
  })

  it('books one clearing turn for many requests of one turn', () => {
    const t = turns()
    const writes = pendingWrites(t.immediate)
    writes.made()
    writes.made()
    expect(writes.writing()).toBe(true)
    t.runTurn()
    expect(writes.writing()).toBe(false)
    t.runTurn()
    expect(writes.writing()).toBe(false)
  })
})

describe('the transport reports its pending write', () => {
  it('from the request handed to undici until the check phase that writes it', async () => {
    const server = createServer((req, res) => {
      req.resume()
      res.end('{}')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
    const transport = createHttpTransport({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    })
    try {
      expect(transport.writing?.()).toBe(false)
      const answer = transport.request({ method: 'GET', path: '/a' })
      expect(transport.writing?.()).toBe(true)
      await answer
      expect(transport.writing?.()).toBe(false)
    } finally {
      await transport.close()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })
})

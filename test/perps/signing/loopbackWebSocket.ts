/**
 * A minimal RFC 6455 server end for tests: accepts an HTTP upgrade, delivers each client text frame
 * to a handler and sends unmasked text frames back. Enough for the official client's session socket
 * on 127.0.0.1; no extensions, no fragmentation (the client sends small single-frame messages).
 */
import { createHash } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11'

export interface LoopbackPeer {
  sendText(text: string): void
  close(): void
}

export function acceptWebSocket(
  req: IncomingMessage,
  socket: Duplex,
  onText: (text: string, peer: LoopbackPeer) => void,
): LoopbackPeer {
  const key = String(req.headers['sec-websocket-key'] ?? '')
  const accept = createHash('sha1')
    .update(key + GUID)
    .digest('base64')
  socket.write(
    `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
  )
  let closed = false
  const writeFrame = (opcode: number, payload: Buffer): void => {
    if (closed || socket.destroyed) return
    const len = payload.length
    const head =
      len < 126
        ? Buffer.from([0x80 | opcode, len])
        : len < 65_536
          ? Buffer.from([0x80 | opcode, 126, len >> 8, len & 0xff])
          : Buffer.concat([Buffer.from([0x80 | opcode, 127]), u64(len)])
    socket.write(Buffer.concat([head, payload]))
  }
  const peer: LoopbackPeer = {
    sendText: (text) => writeFrame(0x1, Buffer.from(text, 'utf8')),
    close: () => {
      writeFrame(0x8, Buffer.from([0x03, 0xe8]))
      closed = true
      socket.end()
    },
  }
  let buf = Buffer.alloc(0)
  socket.on('data', (chunk: Buffer) => {
    buf = Buffer.concat([buf, chunk])
    for (;;) {
      const frame = readFrame(buf)
      if (frame === undefined) return
      buf = buf.subarray(frame.consumed)
      if (frame.opcode === 0x1) onText(frame.payload.toString('utf8'), peer)
      else if (frame.opcode === 0x9) writeFrame(0xa, frame.payload)
      else if (frame.opcode === 0x8) peer.close()
    }
  })
  socket.on('error', () => {
    closed = true
  })
  return peer
}

function u64(n: number): Buffer {
  const b = Buffer.alloc(8)
  b.writeBigUInt64BE(BigInt(n))
  return b
}

function readFrame(buf: Buffer): { opcode: number; payload: Buffer; consumed: number } | undefined {
  if (buf.length < 2) return undefined
  const b0 = buf.readUInt8(0)
  const b1 = buf.readUInt8(1)
  let offset = 2
  let len = b1 & 0x7f
  if (len === 126) {
    if (buf.length < 4) return undefined
    len = buf.readUInt16BE(2)
    offset = 4
  } else if (len === 127) {
    if (buf.length < 10) return undefined
    len = Number(buf.readBigUInt64BE(2))
    offset = 10
  }
  const masked = (b1 & 0x80) !== 0
  const maskLen = masked ? 4 : 0
  if (buf.length < offset + maskLen + len) return undefined
  const mask = buf.subarray(offset, offset + maskLen)
  const payload = Buffer.from(buf.subarray(offset + maskLen, offset + maskLen + len))
  if (masked) for (let i = 0; i < payload.length; i++) payload[i] = (payload[i] ?? 0) ^ (mask[i % 4] ?? 0)
  return { opcode: b0 & 0x0f, payload, consumed: offset + maskLen + len }
}

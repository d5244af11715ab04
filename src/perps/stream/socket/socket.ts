/**
 * The stream client's transport port: a text WebSocket reduced to send/close and four callbacks, so
 * the client is tested against the real socket over loopback and its logic never touches the socket
 * library's API. The default factory is `ws` (the library the mock serves with): it hands a frame
 * over as a `Buffer` from the socket's read, with no `EventTarget` dispatch or `MessageEvent` per
 * frame as undici's `WebSocket` has, ~0.25 us of CPU a frame less (bench/socketRead.bench.ts).
 */
import WebSocket from 'ws'

export interface SocketHandlers {
  onOpen(): void
  /** One text frame (binary frames are decoded as UTF-8). */
  onMessage(text: string): void
  /** The socket is closed; called once, after `onError` if there was one. */
  onClose(code: number, reason: string): void
  onError(message: string): void
}

export interface StreamSocket {
  send(text: string): void
  /** Starts the closing handshake (or abandons a connection still being opened). */
  close(code?: number, reason?: string): void
  /** Bytes queued by `send` and not yet written to the network. */
  readonly bufferedAmount: number
}

export type SocketFactory = (url: string, handlers: SocketHandlers) => StreamSocket

export interface WsSocketOptions {
  headers?: Record<string, string> | undefined
}

/**
 * Socket factory over `ws`. Text frames are checked as UTF-8 by `ws` (a bad one fails the connection
 * with 1007); binary frames are decoded as UTF-8 with replacement.
 */
export function wsSocketFactory(options: WsSocketOptions = {}): SocketFactory {
  return (url, handlers) => {
    const ws = new WebSocket(url, options.headers === undefined ? {} : { headers: options.headers })
    const decoder = new TextDecoder()
    ws.on('open', () => handlers.onOpen())
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      handlers.onMessage(isBinary ? decoder.decode(data) : data.toString())
    })
    ws.on('error', (err: Error) => handlers.onError(err.message || 'websocket error'))
    ws.on('close', (code: number, reason: Buffer) => handlers.onClose(code, reason.toString()))
    return {
      send: (text) => ws.send(text),
      close: (code, reason) => {
        if (ws.readyState === WebSocket.CLOSED || ws.readyState === WebSocket.CLOSING) return
        ws.close(code, reason)
      },
      get bufferedAmount() {
        return ws.bufferedAmount
      },
    }
  }
}

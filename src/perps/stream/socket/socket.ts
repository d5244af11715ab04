/**
 * The stream client's transport port: a text WebSocket reduced to send/close and four callbacks, so
 * the client is tested against the real socket over loopback and its logic never touches the DOM
 * event API. The default factory is undici's own `WebSocket` (the HTTP client's library: one HTTP
 * stack, and a `dispatcher` can be shared).
 */
import { type Dispatcher, WebSocket, type WebSocketInit } from 'undici'

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

export interface UndiciSocketOptions {
  /** Shares the HTTP client's connection pool settings (e.g. its Agent). */
  dispatcher?: Dispatcher | undefined
  headers?: Record<string, string> | undefined
}

/** Socket factory over undici's `WebSocket`. */
export function undiciSocketFactory(options: UndiciSocketOptions = {}): SocketFactory {
  return (url, handlers) => {
    const init: WebSocketInit = {}
    if (options.dispatcher !== undefined) init.dispatcher = options.dispatcher
    if (options.headers !== undefined) init.headers = options.headers
    const ws = new WebSocket(url, init)
    ws.binaryType = 'arraybuffer'
    const decoder = new TextDecoder()
    ws.addEventListener('open', () => handlers.onOpen())
    ws.addEventListener('message', (ev) => {
      const data: unknown = ev.data
      if (typeof data === 'string') handlers.onMessage(data)
      else if (data instanceof ArrayBuffer) handlers.onMessage(decoder.decode(data))
    })
    ws.addEventListener('error', (ev) => handlers.onError(ev.message || 'websocket error'))
    ws.addEventListener('close', (ev) => handlers.onClose(ev.code, ev.reason))
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

/**
 * The ops server answers only its own host names (issue 34): a web page on another name that the
 * attacker's DNS rebinds to 127.0.0.1 sends that name in `Host`, and must not read `/status` or
 * `/history`. Allowed: loopback names (`localhost`, `*.localhost`), any IP literal (a rebinding
 * needs a name; kubelet and Prometheus address a pod by its IP), the bound host, and the names in
 * `ops.hostNames`. A request without `Host` (HTTP/1.0, never a browser) passes. Others get 421.
 */
import { isIP } from 'node:net'

/** The `Host` header's name: lower-case, without the port or IPv6 brackets; undefined when unreadable. */
export function hostName(header: string): string | undefined {
  const h = header.trim().toLowerCase()
  const v6 = /^\[([0-9a-f:.]+)\](?::\d+)?$/.exec(h)
  if (v6) return v6[1]
  const m = /^([a-z0-9._-]+)(?::\d{1,5})?$/.exec(h)
  return m?.[1]?.replace(/\.$/, '')
}

/** Whether a request with this `Host` header is for us. */
export function createHostCheck(o: {
  bindHost: string
  names?: readonly string[] | undefined
}): (header: string | undefined) => boolean {
  const own = new Set(
    [o.bindHost, ...(o.names ?? [])].map((n) => hostName(n) ?? n.toLowerCase()).filter((n) => n !== ''),
  )
  return (header) => {
    if (header === undefined) return true
    const name = hostName(header)
    if (name === undefined) return false
    return name === 'localhost' || name.endsWith('.localhost') || isIP(name) !== 0 || own.has(name)
  }
}

/**
 * The account lease's Lua. Keys per account (one hash tag, so a Redis Cluster keeps them together):
 *   {p}        the lease: `<epoch>:<holder>`, with a TTL (SET ... PX)
 *   {p}:epoch  the last epoch handed out (never expires)
 *
 * The epoch is the fencing token: it goes into our client order ids (perps/orderTag.ts). It is the
 * last epoch + 1, but never below Redis's clock in seconds nor below the caller's `minEpoch`, so a
 * Redis that lost its data (and its counter) still hands out an epoch above every earlier one
 * (unless more hand-overs than seconds elapsed happened just before the loss; see docs/fleet.md).
 */

export interface LeaseKeys {
  readonly lease: string
  readonly epoch: string
}

export function leaseKeys(prefix: string, account: string): LeaseKeys {
  const p = `${prefix}:lease:{${account}}`
  return { lease: p, epoch: `${p}:epoch` }
}

/**
 * KEYS: lease, epoch. ARGV: holder, ttlMs, minEpoch.
 * Reply: {1, token, ttlMs} when acquired; {0, current token, its PTTL} when held by someone.
 */
export const ACQUIRE_LUA = `
local cur = redis.call('GET', KEYS[1])
if cur then return { 0, cur, redis.call('PTTL', KEYS[1]) } end
local t = redis.call('TIME')
local last = tonumber(redis.call('GET', KEYS[2]) or '0')
local epoch = math.max(last + 1, tonumber(t[1]), tonumber(ARGV[3]) + 1)
local e = string.format('%.0f', epoch)
redis.call('SET', KEYS[2], e)
local token = e .. ':' .. ARGV[1]
redis.call('SET', KEYS[1], token, 'PX', ARGV[2])
return { 1, token, tonumber(ARGV[2]) }
`

/**
 * KEYS: lease, epoch. ARGV: token, ttlMs, epoch. Compare-and-set renew.
 * Reply: 1 renewed; 2 the lease had vanished (Redis lost its data) and ours is set again, the epoch
 * counter raised to ours; 0 someone else holds it (or a later epoch was handed out): we lost it.
 */
export const RENEW_LUA = `
local cur = redis.call('GET', KEYS[1])
if cur == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if not cur then
  local last = tonumber(redis.call('GET', KEYS[2]) or '0')
  if last <= tonumber(ARGV[3]) then
    redis.call('SET', KEYS[2], ARGV[3])
    redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
    return 2
  end
end
return 0
`

/** KEYS: lease. ARGV: token. Compare-and-delete. Reply: 1 released, 0 not ours. */
export const RELEASE_LUA = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
`

/**
 * KEYS: the leases of every account. Reply: per key { token or '', PTTL, 1 when its epoch counter
 * exists } flattened (PTTL -2 = free). One round trip for a standby's look at the whole list. A free
 * lease without its counter is an account never held, or one whose Redis lost its data (then its
 * holder re-asserts it at its next renewal).
 */
export const PEEK_LUA = `
local out = {}
for i, k in ipairs(KEYS) do
  out[#out + 1] = redis.call('GET', k) or ''
  out[#out + 1] = redis.call('PTTL', k)
  out[#out + 1] = redis.call('EXISTS', k .. ':epoch')
end
return out
`

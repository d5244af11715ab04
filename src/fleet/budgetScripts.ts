/**
 * The shared IP budget's Lua: an exact sliding log on Redis's own clock (`TIME`), so no process's
 * clock matters and the whole decision is one atomic step on a single-threaded server.
 *
 * Keys (one hash tag per egress, so a Redis Cluster would keep them on one slot):
 *   {p}:log      ZSET, score = admission time in µs (Redis TIME), member = `<seq>:<weight>`
 *   {p}:sum      the weight of the log inside the window (a running sum, rebuilt if lost)
 *   {p}:seq      member counter (members stay unique)
 *   {p}:blocked  µs until which every process pauses (set after a 429)
 *   {p}:gen      µs at which this log began: a Redis that lost its data (restart without
 *                persistence) has no `gen`, so the first call after it starts a new generation,
 *                pauses everyone for a grace period, and each process restores its own recent
 *                admissions (RESTORE_LUA) before admission resumes
 *
 * Lua numbers are doubles: µs since 1970 (~1.8e15) are exact below 2^53, but `redis.call` would
 * format a number argument with %.14g and lose digits, so scores go out through string.format.
 */

export interface BudgetKeys {
  readonly log: string
  readonly sum: string
  readonly seq: string
  readonly blocked: string
  readonly gen: string
}

export function budgetKeys(prefix: string, egress: string): BudgetKeys {
  const p = `${prefix}:ip:{${egress}}`
  return { log: `${p}:log`, sum: `${p}:sum`, seq: `${p}:seq`, blocked: `${p}:blocked`, gen: `${p}:gen` }
}

/**
 * KEYS: log, sum, seq, blocked, gen. ARGV: weight, limit (this caller's share of the budget), windowMs,
 * graceMs (the pause that opens a new generation).
 * Reply: { admitted 0|1, waitMs, weight in the window (after this admission), blocked 0|1,
 * Redis time in µs, generation start in µs, the entry's member when admitted (for RESTAMP_LUA) }.
 * An entry admitted at s counts while now - s < window; the wait names when enough entries will
 * have left the window for this weight to fit (at least 1 ms).
 */
export const ADMIT_LUA = `
local weight = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local window = tonumber(ARGV[3]) * 1000
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local gen = redis.call('GET', KEYS[5])
if not gen then
  gen = string.format('%.0f', now)
  redis.call('SET', KEYS[5], gen)
  local grace = tonumber(ARGV[4])
  if grace > 0 and tonumber(redis.call('GET', KEYS[4]) or '0') < now + grace * 1000 then
    redis.call('SET', KEYS[4], string.format('%.0f', now + grace * 1000), 'PX', grace)
  end
end
local function w(member) return tonumber(string.match(member, ':(%d+)$')) end
local cutoff = string.format('%.0f', now - window)
local stored = redis.call('GET', KEYS[2])
local sum = 0
local changed = false
if stored then
  sum = tonumber(stored)
  local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', cutoff)
  for _, m in ipairs(expired) do sum = sum - w(m) end
  if #expired > 0 then
    redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', cutoff)
    changed = true
  end
else
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', cutoff)
  for _, m in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do sum = sum + w(m) end
  changed = true
end
local ttl = math.floor(window / 1000) + 1000
local admitted = 0
local wait = 0
local blocked = tonumber(redis.call('GET', KEYS[4]) or '0')
if blocked > now then
  wait = math.max(1, math.ceil((blocked - now) / 1000))
elseif sum + weight <= limit then
  local seq = redis.call('INCR', KEYS[3])
  redis.call('ZADD', KEYS[1], string.format('%.0f', now), seq .. ':' .. weight)
  redis.call('PEXPIRE', KEYS[1], ttl)
  sum = sum + weight
  admitted = 1
  changed = true
else
  local need = sum + weight - limit
  local freed = 0
  wait = window
  -- Oldest first, 32 at a time: the weight needed is usually freed by the first few entries.
  local from = 0
  while freed < need do
    local entries = redis.call('ZRANGE', KEYS[1], from, from + 31, 'WITHSCORES')
    if #entries == 0 then break end
    for i = 1, #entries, 2 do
      freed = freed + w(entries[i])
      if freed >= need then
        wait = tonumber(entries[i + 1]) + window - now
        break
      end
    end
    from = from + 32
  end
  wait = math.max(1, math.ceil(wait / 1000))
end
if changed then redis.call('SET', KEYS[2], sum, 'PX', ttl) end
local member = ''
if admitted == 1 then member = redis.call('GET', KEYS[3]) .. ':' .. weight end
return { admitted, wait, sum, blocked > now and 1 or 0, now, tonumber(gen), member }
`

/**
 * An admission sent late (its process was starved between Redis's answer and the send): its entry
 * is stamped again with Redis's clock now, so it counts in the log as long as the venue counts its
 * arrival. Only ever later (ZADD GT). An entry no longer in the log (it expired while the request
 * waited, or Redis lost it) is added back and its weight counted again.
 * KEYS: log, sum. ARGV: windowMs, member, weight. Reply: the new stamp in µs.
 */
export const RESTAMP_LUA = `
local window = tonumber(ARGV[1]) * 1000
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local ttl = math.floor(window / 1000) + 1000
if not redis.call('ZSCORE', KEYS[1], ARGV[2]) then
  local stored = redis.call('GET', KEYS[2])
  -- Without a stored sum the next admission rebuilds it from the log, this entry included.
  if stored then redis.call('SET', KEYS[2], tonumber(stored) + tonumber(ARGV[3]), 'PX', ttl) end
end
redis.call('ZADD', KEYS[1], 'GT', string.format('%.0f', now), ARGV[2])
redis.call('PEXPIRE', KEYS[1], ttl)
return now
`

/**
 * KEYS: blocked. ARGV: pauseMs. Every process pauses until Redis TIME + pauseMs (a later pause
 * already set wins). Reply: the remaining pause in ms.
 */
export const BLOCK_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local ms = tonumber(ARGV[1])
local untilUs = now + ms * 1000
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if current >= untilUs then return math.ceil((current - now) / 1000) end
redis.call('SET', KEYS[1], string.format('%.0f', untilUs), 'PX', ms)
return ms
`

/**
 * KEYS: log, sum, seq. ARGV: windowMs, then pairs of (µs, weight): a process's own admissions,
 * put back into a new generation's log. Entries already outside the window are dropped.
 * Reply: the weight in the window after the restore.
 */
export const RESTORE_LUA = `
local window = tonumber(ARGV[1]) * 1000
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local sum = tonumber(redis.call('GET', KEYS[2]) or '0')
local ttl = math.floor(window / 1000) + 1000
for i = 2, #ARGV, 2 do
  local at = tonumber(ARGV[i])
  local weight = tonumber(ARGV[i + 1])
  if at > now - window then
    local seq = redis.call('INCR', KEYS[3])
    redis.call('ZADD', KEYS[1], ARGV[i], seq .. ':' .. weight)
    sum = sum + weight
  end
end
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('SET', KEYS[2], sum, 'PX', ttl)
return sum
`

/**
 * Read-only look at the budget (`perpbot status --fleet`). KEYS: log, blocked. ARGV: windowMs.
 * Reply: { weight in the window now, ms of shared pause left }.
 */
export const PEEK_BUDGET_LUA = `
local window = tonumber(ARGV[1]) * 1000
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local sum = 0
for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. string.format('%.0f', now - window), '+inf')) do
  sum = sum + tonumber(string.match(m, ':(%d+)$'))
end
local blocked = tonumber(redis.call('GET', KEYS[2]) or '0')
local left = 0
if blocked > now then left = math.ceil((blocked - now) / 1000) end
return { sum, left }
`

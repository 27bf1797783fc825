-- handoff.lua: functions shared by acquire.lua, release.lua and force_unlock.lua.
-- Not a script of its own: the loader inlines it where a script says "-- @include handoff.lua".
--
-- Keys, the same in every script that includes this file (all share the lock's hash tag):
--   KEYS[1] the lock: a hash {o = owner id, c = hold count, t = fencing token}, with a PX lease
--   KEYS[2] the fence: the last fencing token issued for this lock name (string)
--   KEYS[3] the wait queue: a sorted set of waiter owner ids, scored by arrival (server time, us)
--   KEYS[4] the waiter table: a hash owner id -> "<expires ms> <lease ms> <claim ms> <channel>"
--           (expires: server time after which the entry is dead unless refreshed; claim: how long a
--           granted lock is first kept before the waiter confirms it; channel: where to notify:
--           a client's channel, for PUBLISH; or '!', for SPUBLISH on the lock's own channel
--           "<KEYS[1]>:n", which shares its slot (sharded pub/sub on a Redis 7+ Cluster))

-- Server time as (milliseconds, microseconds). Never the clients' clocks.
local function server_time()
  local t = redis.call('TIME')
  local sec, usec = tonumber(t[1]), tonumber(t[2])
  return sec * 1000 + math.floor(usec / 1000), sec * 1000000 + usec
end

-- The next fencing token: above the last one issued and at least the server clock in microseconds,
-- so tokens keep increasing when Redis loses the fence key (restart without persistence, failover).
local function next_token(now_us, retention_ms)
  local token = tonumber(redis.call('GET', KEYS[2]) or '0') + 1
  if now_us > token then
    token = now_us
  end
  redis.call('SET', KEYS[2], string.format('%d', token), 'PX', retention_ms)
  return token
end

local function forget_waiter(waiter)
  redis.call('ZREM', KEYS[3], waiter)
  redis.call('HDEL', KEYS[4], waiter)
end

-- The longest-waiting waiter whose entry has not expired; expired entries met on the way are
-- removed, so a waiter that died holds nobody up beyond its entry's expiry.
local function first_live_waiter(now_ms)
  while true do
    local head = redis.call('ZRANGE', KEYS[3], 0, 0)
    if #head == 0 then
      return false
    end
    local entry = redis.call('HGET', KEYS[4], head[1])
    if entry and tonumber(string.match(entry, '^(%d+) ')) > now_ms then
      return head[1], entry
    end
    forget_waiter(head[1])
  end
end

-- Hands the (free) lock to the first live waiter and tells it on its client's channel with
-- "<token> <owner> <lock key>", so the waiter needs no further round trip. The grant first lasts
-- only the waiter's claim time: a waiter that died while queued holds the lock up that long, not a
-- whole lease; a live one extends it if it still holds the lock by then. Returns the new owner, or
-- false when nobody waits.
local function grant_next(now_ms, now_us, retention_ms)
  local waiter, entry = first_live_waiter(now_ms)
  if not waiter then
    return false
  end
  forget_waiter(waiter)
  local lease, claim, channel = string.match(entry, '^%d+ (%d+) (%d+) (.+)$')
  if tonumber(claim) < tonumber(lease) then
    lease = claim
  end
  local token = string.format('%d', next_token(now_us, retention_ms))
  redis.call('HSET', KEYS[1], 'o', waiter, 'c', 1, 't', token)
  redis.call('PEXPIRE', KEYS[1], lease)
  local message = token .. ' ' .. waiter .. ' ' .. KEYS[1]
  if channel == '!' then
    redis.call('SPUBLISH', KEYS[1] .. ':n', message)
  else
    redis.call('PUBLISH', channel, message)
  end
  return waiter
end

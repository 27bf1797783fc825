-- fence.lua: a lock name's fencing tokens, shared by every lock script. Not a script of its own:
-- the loader inlines it where a script says "-- @include fence.lua".
--
-- FENCE, named after the script's one key KEYS[1] (the lock, or a semaphore's or read-write
-- lock's marker) and so in its Redis Cluster slot: "<last token issued>", or "<last token
-- issued> w" while waiters of an exclusive lock may be queued (see handoff.lua), so that an
-- acquisition that finds the lock free learns from the one read it already makes whether it must
-- let a waiter go first. It is kept for the fence retention after its last write.

local FENCE = KEYS[1] .. ':fence'

-- Server time as (milliseconds, microseconds). Never the clients' clocks.
local function server_time()
  local t = redis.call('TIME')
  local sec, usec = tonumber(t[1]), tonumber(t[2])
  return sec * 1000 + math.floor(usec / 1000), sec * 1000000 + usec
end

-- The fence as (last token issued, whether waiters may be queued, whether the key exists).
local function read_fence()
  local f = redis.call('GET', FENCE)
  if not f then
    return 0, false, false
  end
  local token, mark = string.match(f, '^(%d+)(.*)$')
  return tonumber(token), mark == ' w', true
end

local function write_fence(token, waiters, retention_ms)
  redis.call('SET', FENCE, string.format('%d', token) .. (waiters and ' w' or ''), 'PX', retention_ms)
end

-- The fence was just set to the clock (now_us) with SET ... GET, which returned `old`: the token
-- is the clock, or one above the last token if that is not below it, and the fence is written
-- again if that or the waiters mark it held must be kept. Returns as issue_token.
local function settle_fence(old, now_us, retention_ms)
  if not old then
    return now_us, false, false
  end
  local last, mark = string.match(old, '^(%d+)(.*)$')
  last = tonumber(last)
  local waiters = mark == ' w'
  local token = now_us
  if last >= now_us then
    token = last + 1
  end
  if token ~= now_us or waiters then
    write_fence(token, waiters, retention_ms)
  end
  return token, waiters, true
end

-- Issues the next fencing token with the waiters mark given, in one write where the clock is ahead
-- of the fence (the usual case); see issue_token. Returns the token.
local function issue_marked_token(now_us, waiters, retention_ms)
  local mark = waiters and ' w' or ''
  local old = redis.call('SET', FENCE, string.format('%d', now_us) .. mark, 'PX', retention_ms, 'GET')
  local last = tonumber(old and string.match(old, '^(%d+)') or '0')
  if last >= now_us then
    write_fence(last + 1, waiters, retention_ms)
    return last + 1
  end
  return now_us
end

-- Issues the next fencing token and records it in the fence, in one write: the server clock in
-- microseconds, or one above the last token if that is not below the clock (the clock stepped
-- back). So tokens keep increasing when Redis loses the fence (restart without persistence,
-- failover to a replica that lacked it): they then follow the clock. Returns the token, whether
-- waiters may be queued, and whether the fence existed.
local function issue_token(now_us, retention_ms)
  local old = redis.call('SET', FENCE, string.format('%d', now_us), 'PX', retention_ms, 'GET')
  return settle_fence(old, now_us, retention_ms)
end

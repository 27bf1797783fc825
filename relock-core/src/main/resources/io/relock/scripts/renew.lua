-- renew.lua: the watchdog's batch renewal; extends every listed hold its owner still holds.
--
-- KEYS[1..n] holds (see lockvalue.lua): an exclusive lock's key, or a shared hold's (a semaphore's
--            permit, a read-write lock's reader or writer: see holders.lua)
-- ARGV[1]     the new lease in milliseconds
-- ARGV[2..n+1] the owner id expected in KEYS[i] (ARGV[i + 1])
-- ARGV[n+2]   how long a name's kind marker is kept after its last use, in milliseconds: a shared
--            hold renewed extends its name's marker, so that the marker outlives every hold
--
-- Returns {r1, ..., rn}: ri = 1 if KEYS[i] was still held by its owner and was extended,
-- 0 if it was gone or held by someone else (the owner's lease is lost).

-- @include lockvalue.lua

local t = redis.call('TIME')
local now_us = t[1] .. string.rep('0', 6 - #t[2]) .. t[2]
local result = {}
for i = 1, #KEYS do
  -- Matched here rather than by parse_lock: a key something else overwrote is one lost lease, not
  -- an error that would fail every other renewal of the batch.
  local v = redis.pcall('GET', KEYS[i])
  local owner, token, count, since, waiters, attempt
  if type(v) == 'string' then
    owner, token, count, since, waiters, attempt = string.match(v, '^(%S+) (%d+) (%d+) %d+ %d+ (%d+) ([w-]) (%S+)$')
  end
  if owner and owner == ARGV[i + 1] then
    redis.call('SET', KEYS[i], lock_value(owner, token, count, ARGV[1], now_us, since, waiters, attempt), 'PX', ARGV[1])
    local marker = string.match(KEYS[i], '^(.*):h:')
    if marker and ARGV[#KEYS + 2] then
      redis.call('PEXPIRE', marker, ARGV[#KEYS + 2])
    end
    result[i] = 1
  else
    result[i] = 0
  end
end
return result

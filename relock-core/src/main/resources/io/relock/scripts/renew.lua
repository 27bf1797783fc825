-- renew.lua: the watchdog's batch renewal; extends every listed hold its owner still holds, for as
-- long as a time budget allows, so that a batch never keeps Redis from other clients for longer.
--
-- KEYS[1..n]   holds (see lockvalue.lua): an exclusive lock's key, or a shared hold's (a
--              semaphore's permit, a read-write lock's reader or writer: see holders.lua), which is
--              its name's key (the kind marker) followed by ':h:' and the owner id
-- ARGV[1]      the new lease in milliseconds: never more than the lease in the holds' values (a renewal
--              then keeps the bound release.lua relies on, see lockvalue.lua)
-- ARGV[2]      how long a kind marker is kept after its last use, in milliseconds: a shared hold
--              renewed extends its name's marker (once per name and call), so that the marker
--              outlives every hold
-- ARGV[3]      the time budget in microseconds: the call stops once it has run that long (looked at
--              every 8 holds), leaving the holds after that to the caller's next call
-- ARGV[4..n+3] the owner id expected in KEYS[i] (ARGV[i + 3])
--
-- Returns {elapsed, r1, ..., rk}, k <= n: elapsed the microseconds the call ran; ri = 1 if KEYS[i]
-- was still held by its owner and was extended, 0 if it was gone or held by someone else (the
-- owner's lease is lost). k < n when the budget ran out: KEYS[k+1..n] were not looked at.
--
-- Per hold: one GET and, if its value starts with the owner id, one PEXPIREAT (cheaper than
-- PEXPIRE, which Redis 7 rewrites to it for replicas); the value is not parsed or rewritten (it
-- holds no expiry: see lockvalue.lua). A key something else overwrote counts as one lost lease,
-- not as an error that would fail the batch.

local budget = tonumber(ARGV[3])
local n = #KEYS
local t = redis.call('TIME')
local expires_at = string.format('%d', t[1] * 1000 + math.floor(t[2] / 1000) + tonumber(ARGV[1]))
local result = {0}
local marked = {}
for i = 1, n do
  local key, owner = KEYS[i], ARGV[i + 3]
  local v = redis.pcall('GET', key)
  -- The owner id, then a space: compared in place (a copy of the prefix would cost more).
  if type(v) == 'string' and string.byte(v, #owner + 1) == 32 and string.find(v, owner, 1, true) == 1 then
    redis.call('PEXPIREAT', key, expires_at)
    result[i + 1] = 1
    local name = #key > #owner + 3 and string.sub(key, -#owner - 3, -#owner - 1) == ':h:'
        and string.sub(key, 1, -#owner - 4)
    if name and not marked[name] then
      marked[name] = true
      local kind = redis.pcall('GET', name)
      if kind == 'readwrite' or (type(kind) == 'string' and string.find(kind, '^semaphore %d+$')) then
        redis.call('PEXPIRE', name, ARGV[2])
      end
    end
  else
    result[i + 1] = 0
  end
  if i % 8 == 0 and i < n then
    local now = redis.call('TIME')
    if (now[1] - t[1]) * 1000000 + (now[2] - t[2]) >= budget then
      break
    end
  end
end
local now = redis.call('TIME')
result[1] = (now[1] - t[1]) * 1000000 + (now[2] - t[2])
return result

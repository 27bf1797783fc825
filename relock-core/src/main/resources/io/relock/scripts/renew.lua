-- renew.lua: the watchdog's batch renewal; extends every listed hold its owner still holds, for as
-- long as a time budget allows, so that a batch never keeps Redis from other clients for longer.
--
-- KEYS[1..n]   holds (see lockvalue.lua): an exclusive lock's key, which ends with the closing
--              brace of its hash tag, or a shared hold's (a semaphore's permit, a read-write lock's
--              reader or writer: see holders.lua), which is its name's key (the kind marker, which
--              ends with that brace) followed by ':h:' and the owner id (which has no brace)
-- ARGV[1]      the new lease in milliseconds: never more than the lease in the holds' values (a renewal
--              then keeps the bound release.lua relies on, see lockvalue.lua)
-- ARGV[2]      the time budget in microseconds: the call stops once it has run that long (looked at
--              every 8 holds), leaving the holds after that to the caller's next call
-- ARGV[3..n+2] the owner id expected in KEYS[i] (ARGV[i + 2])
--
-- Returns {elapsed, r1, ..., rk}, k <= n: elapsed the microseconds the call ran; ri = 1 if KEYS[i]
-- was still held by its owner and was extended, 0 if it was gone or held by someone else (the
-- owner's lease is lost). k < n when the budget ran out: KEYS[k+1..n] were not looked at.
--
-- Per hold: one GET and, if its value starts with the owner id, one PEXPIREAT (cheaper than
-- PEXPIRE, which Redis 7 rewrites to it for replicas); the value is not parsed or rewritten (it
-- holds no expiry: see lockvalue.lua). A key something else overwrote counts as one lost lease,
-- not as an error that would fail the batch. A shared hold renewed keeps its name's marker, and the
-- holder indexes with it, at least as long as the new lease (once per name and call; see
-- holders.lua): only a key that ends with '}:h:' and the owner is one, and only a marker is
-- touched. Its score in its holder index is lowered to the new end where that is sooner, never
-- raised, so that it stays a lower bound of the hold's end (see holders.lua): one more command per
-- shared hold (two for a read-write lock's, whose lane the key does not tell).

local budget, lease = tonumber(ARGV[2]), tonumber(ARGV[1])
local n = #KEYS
local t = redis.call('TIME')
local expires_at = string.format('%d', t[1] * 1000 + math.floor(t[2] / 1000) + lease)
local result = {0}
local marked = {}

-- Raises the expiry of `key` to the lease from now where it would end sooner (or has none).
local function keep(key)
  local pttl = redis.call('PTTL', key)
  if pttl ~= -2 and pttl < lease then
    redis.call('PEXPIRE', key, lease)
  end
end

for i = 1, n do
  local key, owner = KEYS[i], ARGV[i + 2]
  local v = redis.pcall('GET', key)
  -- The owner id, then a space: compared in place (a copy of the prefix would cost more).
  if type(v) == 'string' and string.byte(v, #owner + 1) == 32 and string.find(v, owner, 1, true) == 1 then
    redis.call('PEXPIREAT', key, expires_at)
    result[i + 1] = 1
    local name = #key > #owner + 4 and string.sub(key, -#owner - 4, -#owner - 1) == '}:h:'
        and string.sub(key, 1, -#owner - 4)
    local sets = name and marked[name]
    if name and sets == nil then
      local kind = redis.pcall('GET', name)
      sets = kind == 'readwrite' and {':readers', ':writers'}
          or (type(kind) == 'string' and string.find(kind, '^semaphore %d+$') and {':held'}) or false
      marked[name] = sets
      if sets and redis.call('PTTL', name) < lease then
        redis.call('PEXPIRE', name, lease)
        for _, set in ipairs(sets) do
          keep(name .. set)
        end
      end
    end
    if sets then
      -- The hold may now end sooner than its score said (a re-entry had raised its end): the score
      -- comes down to the new end, so that it stays a lower bound (see holders.lua).
      for _, set in ipairs(sets) do
        redis.pcall('ZADD', name .. set, 'XX', 'LT', expires_at, owner)
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

-- extend.lua: sets how long one hold has left, if its owner still holds it: LockLease.extend (the
-- lease from now) and LockLease.closeAfter (the hold is left to expire then, by Redis).
--
-- KEYS[1] the hold, as renew.lua's KEYS[i]: an exclusive lock's key, or a shared hold's (a
--         semaphore's permit, a read-write lock's reader or writer: its name's key, ':h:' and the
--         owner id, see holders.lua)
-- ARGV[1] the owner id expected in KEYS[1]
-- ARGV[2] the hold's new time to live in milliseconds, at least 1: set as it is, later or sooner
--         than the hold's end before
--
-- Returns {1} if KEYS[1] was held by the owner and now expires ARGV[2] ms from now; {0} if it was
-- gone or held by another owner (the owner's lease is lost), and nothing was changed.
--
-- The hold's value keeps the lease it was taken for (see lockvalue.lua), which bounds every write
-- of its expiry: a time to live longer than that lease rewrites the value with the longer one, so
-- that the bound holds (release.lua may put another owner's hold back with it). A shared hold keeps
-- its name's marker and holder indexes at least as long (as renew.lua does), and its score in its
-- holder index comes down to the new end where that is sooner, never up, so that it stays a lower
-- bound of the hold's end (see holders.lua).

-- @include lockvalue.lua

local key, owner, ttl = KEYS[1], ARGV[1], tonumber(ARGV[2])
local v = redis.call('GET', key)
if not v or string.byte(v, #owner + 1) ~= 32 or string.find(v, owner, 1, true) ~= 1 then
  return {0}
end
local holder, token, count, lease, since, waiters, attempt = parse_lock(v)
if ttl > tonumber(lease) then
  redis.call('SET', key, lock_value(holder, token, count, ttl, since, waiters, attempt), 'PX', ttl)
else
  redis.call('PEXPIRE', key, ttl)
end

local name = #key > #owner + 4 and string.sub(key, -#owner - 4, -#owner - 1) == '}:h:'
    and string.sub(key, 1, -#owner - 4)
if name then
  local kind = redis.pcall('GET', name)
  local sets = kind == 'readwrite' and {':readers', ':writers'}
      or (type(kind) == 'string' and string.find(kind, '^semaphore %d+$') and {':held'}) or {}
  if #sets > 0 and redis.call('PTTL', name) < ttl then
    redis.call('PEXPIRE', name, ttl)
  end
  local t = redis.call('TIME')
  local ends = string.format('%d', t[1] * 1000 + math.floor(t[2] / 1000) + ttl)
  for _, set in ipairs(sets) do
    local pttl = redis.call('PTTL', name .. set)
    if pttl ~= -2 and pttl < ttl then
      redis.call('PEXPIRE', name .. set, ttl)
    end
    redis.pcall('ZADD', name .. set, 'XX', 'LT', ends, owner)
  end
end
return {1}

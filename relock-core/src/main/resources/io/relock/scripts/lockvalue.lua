-- lockvalue.lua: the value of a held lock, read and written the same way by every script.
-- Not a script of its own: the loader inlines it where a script says "-- @include lockvalue.lua".
--
-- A held lock is one string key whose expiry is the lease, holding seven fields:
--   "<owner> <token> <count> <lease ms> <since us> <waiters> <attempt>"
-- owner    the holder's owner id (no spaces)
-- token    its fencing token
-- count    its holds as Redis counts them: for operators; the client keeps the count that counts
-- lease    the lease the owner holds it for, in ms. Every write of the key's expiry, a renewal's
--          included, sets it to at most this much from then, so the key expires within a lease of
--          any moment: what release.lua puts back a hold it took from another owner with.
-- since    when this owner was granted the lock (server time, us)
-- waiters  'w' if waiters may be queued for the lock (its release must hand it on), else '-'
-- attempt  on a Redlock master, the acquisition attempt that took the hold (redlock_acquire.lua);
--          '-' elsewhere
-- One string, so that taking a free lock is one SET NX and releasing an unqueued one one GETDEL;
-- no expiry in it, so that a renewal (renew.lua) is one PEXPIREAT after checking the owner,
-- without rewriting the value; and times kept as the digits TIME gives, so that the common paths never
-- turn a number into text (which costs Redis more than a command).

-- The fields of a lock value, as strings; nothing for a free lock (v is false). A value relock
-- did not write fails the script before it changes anything more, with an error that says
-- WRONGTYPE (raised as a string: Redis 6.2 cannot raise an error reply from inside a function).
local function parse_lock(v)
  if not v then
    return nil
  end
  local owner, token, count, lease, since, waiters, attempt =
      string.match(v, '^(%S+) (%d+) (%d+) (%d+) (%d+) ([w-]) (%S+)$')
  if not owner then
    local permits = string.match(v, '^semaphore (%d+)$')
    if permits then
      error('WRONGKIND the name is a semaphore of ' .. permits .. ' permits, not an exclusive lock')
    elseif v == 'readwrite' then
      error('WRONGKIND the name is a read-write lock, not an exclusive lock')
    end
    error('WRONGTYPE the key does not hold a relock lock')
  end
  return owner, token, count, lease, since, waiters, attempt
end

-- Integers as digits (tokens and microseconds exceed what Lua prints without an exponent).
local function digits(n)
  if type(n) == 'number' then
    return string.format('%d', n)
  end
  return n
end

-- A lock value from its fields.
local function lock_value(owner, token, count, lease, since, waiters, attempt)
  return owner .. ' ' .. digits(token) .. ' ' .. digits(count) .. ' ' .. digits(lease) .. ' ' .. digits(since) .. ' '
      .. waiters .. ' ' .. (attempt or '-')
end

-- Writes the lock KEYS[1] to expire `px` ms from now (`lease` if px is nil, never more than it);
-- with nx, only if free. Returns what SET returns (false if NX found it taken).
local function set_lock(owner, token, count, lease, since, waiters, attempt, nx, px)
  local v = lock_value(owner, token, count, lease, since, waiters, attempt)
  if nx then
    return redis.call('SET', KEYS[1], v, 'NX', 'PX', px or lease)
  end
  return redis.call('SET', KEYS[1], v, 'PX', px or lease)
end

-- Rewrites the lock KEYS[1], keeping its expiry.
local function keep_lock(owner, token, count, lease, since, waiters, attempt)
  redis.call('SET', KEYS[1], lock_value(owner, token, count, lease, since, waiters, attempt), 'KEEPTTL')
end

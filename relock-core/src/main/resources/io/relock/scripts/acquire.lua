-- acquire.lua: take the lock, re-enter it, or queue for it; also re-checks and withdraws a waiter.
--
-- KEYS[1] lock hash, KEYS[2] fence, KEYS[3] wait queue, KEYS[4] waiter table (see handoff.lua)
-- ARGV[1] owner id of the caller
-- ARGV[2] lease in milliseconds
-- ARGV[3] mode:
--           'try'     take or re-enter the lock if possible, never queue
--           'wait'    take or re-enter the lock, or queue (the caller then waits for a grant)
--           'recheck' a queued waiter asking again: take it if free, report a grant, refresh entry
--           'giveup'  a waiter whose time ran out: keep the lock if it was granted, else withdraw
--           'abandon' a cancelled waiter: withdraw, and release the lock if it was granted
--           'reenter' re-enter a hold the caller believes it has; never takes a free lock
-- ARGV[4] how long the queue entry stays valid without a recheck, in milliseconds
-- ARGV[5] the pub/sub channel of the caller's client, for the grant notification
-- ARGV[6] how long the fence key is kept after its last use, in milliseconds
-- ARGV[7] claim time in milliseconds: how long a lock handed to the caller is first kept
-- ARGV[8] '1' if the caller follows this call with WAIT (replica acknowledgements): a reply that
--         finds the caller holding the lock then also writes (a no-op HINCRBY), so that the WAIT,
--         which counts only this connection's writes, covers the grant made by another client
--
-- Returns {code, fencing token, n}:
--   { 1, token, 1}     acquired now
--   { 2, token, count} re-entered ('reenter' only); count is the new hold count in Redis
--   { 3, token, 1}     the caller already holds it: handed to it while it waited, or taken by an
--                      earlier attempt of the same acquisition whose reply was lost (owner ids are
--                      unique per acquisition, so any mode but 'reenter' may be sent again safely)
--   { 0, 0, pttl}      'try': held by another owner
--   { 0, 0, pttl, issued} held by another owner, the caller queued; pttl of that hold, -1 if none
--   {-1, 0, 0}         withdrawn ('giveup' or 'abandon')
--   {-2, 0, 0}         'reenter' found the caller no longer holds the lock: nothing changed
--   {-3, 0, 0, issued} 'recheck' found no queue entry of the caller: nothing changed, queue again
-- issued: no fencing token issued so far for this name is above it; later ones are (see
-- next_token; should the server clock step back, a live grant looks ended, and the waiter's next
-- recheck finds it). The caller does not hold the lock now, so a grant to it with a token up to
-- 'issued' has ended: a notification of it that arrives after this reply must be ignored.

-- @include handoff.lua

local owner, lease, mode = ARGV[1], ARGV[2], ARGV[3]
local now_ms, now_us = server_time()

-- See 'issued' above; the clock covers a fence key that has expired (see next_token).
local function issued()
  return math.max(tonumber(redis.call('GET', KEYS[2]) or '0'), now_us)
end
local holder = redis.call('HGET', KEYS[1], 'o')

if holder == owner then
  local token = tonumber(redis.call('HGET', KEYS[1], 't'))
  if mode == 'reenter' then
    -- The count in Redis is for operators; the client keeps the one it relies on. A re-entry whose
    -- reply was lost may count twice here: harmless, since the last unlock releases every hold.
    local count = redis.call('HINCRBY', KEYS[1], 'c', 1)
    redis.call('PEXPIRE', KEYS[1], lease)
    return {2, token, count}
  end
  if mode == 'abandon' then
    redis.call('DEL', KEYS[1])
    grant_next(now_ms, now_us, ARGV[6])
    return {-1, 0, 0}
  end
  if ARGV[8] == '1' then
    redis.call('HINCRBY', KEYS[1], 'c', 0)
  end
  return {3, token, 1}
end

if mode == 'reenter' then
  return {-2, 0, 0}
end

if mode == 'giveup' or mode == 'abandon' then
  forget_waiter(owner)
  return {-1, 0, 0}
end

if mode == 'recheck' and not redis.call('ZSCORE', KEYS[3], owner) then
  -- The caller's entry is gone: it expired, or it was granted and the grant has since ended (a
  -- notification may still be on its way). Never take the lock here under the old request: the
  -- caller must queue again, so a late grant cannot be mistaken for a live one.
  return {-3, 0, 0, issued()}
end

if not holder then
  -- Free, normally because a holder's lease ran out. Serve the queue in order: the first live
  -- waiter gets it, unless that is the caller or nobody waits.
  local first = first_live_waiter(now_ms)
  if first and first ~= owner then
    grant_next(now_ms, now_us, ARGV[6])
  else
    if first then
      forget_waiter(owner)
    end
    local token = next_token(now_us, ARGV[6])
    redis.call('HSET', KEYS[1], 'o', owner, 'c', 1, 't', string.format('%d', token))
    redis.call('PEXPIRE', KEYS[1], lease)
    return {1, token, 1}
  end
end

if mode ~= 'try' then
  local ttl = tonumber(ARGV[4])
  if not redis.call('ZSCORE', KEYS[3], owner) then
    redis.call('ZADD', KEYS[3], now_us, owner)
  end
  redis.call('HSET', KEYS[4], owner, string.format('%d', now_ms + ttl) .. ' ' .. lease .. ' ' .. ARGV[7] .. ' ' .. ARGV[5])
  -- The queue keys outlive their last entry by at most one entry lifetime.
  for i = 3, 4 do
    if redis.call('PTTL', KEYS[i]) < ttl then
      redis.call('PEXPIRE', KEYS[i], ttl)
    end
  end
  return {0, 0, redis.call('PTTL', KEYS[1]), issued()}
end
return {0, 0, redis.call('PTTL', KEYS[1])}

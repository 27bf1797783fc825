-- redlock_acquire.lua: one Redlock node's part of an acquisition (see RedlockDriver): take the
-- lock on this node if it is free, or say who has it; never waits or queues here.
--
-- KEYS[1] the lock (see lockvalue.lua; its token field stays 0 here until redlock_fence.lua writes it)
-- KEYS[2] the set of client channels to tell when the lock is freed on this node
-- KEYS[3] this node's marker: a hash {since, until} (server time, ms) written when relock first
--         used the node ('init') or found it had lost its data ('recover'); until: the node takes
--         no part in locking before then (the delayed restart)
-- KEYS[4] this node's fence: the highest fencing token written here, for every lock name
-- ARGV[1] owner id of the caller
-- ARGV[2] lease in milliseconds
-- ARGV[3] 'take'    take the lock if it is free (or already the caller's)
--         'wait'    the same, and if another owner has it, add ARGV[5] to KEYS[2]
--         'reenter' the caller believes it holds the lock: raise the count; never takes it
-- ARGV[4] how long an entry of KEYS[2] lasts, in milliseconds
-- ARGV[5] the caller's client channel
-- ARGV[6] the attempt: stored in the attempt field of a hold this call takes or finds the caller's, so that
--         a give-back of an earlier attempt (see redlock_release.lua) cannot free it
--
-- Returns {code, n, pttl}:
--   { 1, fence, 0}    taken now
--   { 3, fence, 0}    already the caller's (an earlier attempt took it); the lease starts again
--   { 2, count, 0}    'reenter': the new hold count
--   { 0, fence, pttl} held by another owner; pttl of that hold
--   {-2, 0, 0}        'reenter' found the caller not holding it here
--   {-8, 0, ms}       the node is in its delayed restart for ms more
--   {-9, 0, 0}        the node has no marker: never used by relock, or it lost its data

-- @include lockvalue.lua

local marker = redis.call('HGET', KEYS[3], 'until')
if not marker then
  return {-9, 0, 0}
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local now_us = t[1] .. string.rep('0', 6 - #t[2]) .. t[2]
if tonumber(marker) > now then
  return {-8, 0, tonumber(marker) - now}
end

local owner, lease, mode = ARGV[1], tonumber(ARGV[2]), ARGV[3]
local holder, token, count, hlease, since, _, attempt = parse_lock(redis.call('GET', KEYS[1]))
if mode == 'reenter' then
  if holder ~= owner then
    return {-2, 0, 0}
  end
  count = tonumber(count) + 1
  -- Never shorter than it was; the value keeps the longest lease asked (see lockvalue.lua).
  set_lock(owner, token, count, math.max(lease, tonumber(hlease)), since, '-', attempt, false,
      math.max(lease, redis.call('PTTL', KEYS[1])))
  return {2, count, 0}
end

local fence = tonumber(redis.call('GET', KEYS[4]) or '0')
if holder == owner then
  set_lock(owner, token, count, math.max(lease, tonumber(hlease)), since, '-', ARGV[6], false, lease)
  return {3, fence, 0}
end
if not holder then
  set_lock(owner, 0, 1, lease, now_us, '-', ARGV[6])
  return {1, fence, 0}
end
if mode == 'wait' then
  redis.call('SADD', KEYS[2], ARGV[5])
  if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[4]) then
    redis.call('PEXPIRE', KEYS[2], ARGV[4])
  end
end
return {0, fence, redis.call('PTTL', KEYS[1])}

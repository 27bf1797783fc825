-- multilock_acquire.lua: a multi-lock's first attempt, in one call: every one of its exclusive
-- locks, or none. The client sends it when the locks' keys live on one server (any names on one
-- Redis or a Sentinel-managed primary; names whose keys share a slot on a Redis Cluster); when it
-- finds any lock busy, the client takes the locks one by one, in key order, through acquire.lua,
-- which queues and hands over as for any lock.
--
-- KEYS[1..n]   the locks, in the multi-lock's order (each one's fence and queue are named after it,
--              as in fence.lua and queue.lua)
-- ARGV[1]      lease in milliseconds, for every lock
-- ARGV[2]      how long each fence key is kept after its last use, in milliseconds
-- ARGV[2 + i]  the owner id of lock i's acquisition (one acquisition, and owner, per lock, so that
--              each hold is released, renewed and reported lost as an ordinary one)
--
-- A lock counts as busy when it is held, or when waiters may be queued for it (its fence carries
-- the waiters mark, or it has a queue and no fence): those waiters go first, and acquire.lua knows
-- how to serve them. Nothing is written unless every lock is free.
--
-- Returns one triple per lock, {code, token, n}, in KEYS order and flattened:
--   {1, token, 1} for every lock   all taken now, each with its own fencing token (as acquire.lua's
--                                  'try' answers for one lock)
--   {0, 0, -1} for every lock      none taken: at least one is busy
-- A lock key holding a value relock did not write, or a semaphore or read-write lock of that name,
-- fails the call (WRONGTYPE or WRONGKIND, as acquire.lua) before anything is written.

-- @include lockvalue.lua

local lease, retention = ARGV[1], ARGV[2]
local busy = false
for _, key in ipairs(KEYS) do
  local held = redis.call('GET', key)
  if held then
    parse_lock(held) -- raises for a value of another kind
    busy = true
  elseif not busy then
    local fence = redis.call('GET', key .. ':fence')
    if fence then
      busy = string.find(fence, ' w', 1, true) ~= nil
    else
      busy = redis.call('EXISTS', key .. ':q') == 1
    end
  end
end

local reply = {}
if busy then
  for i = 1, #KEYS do
    reply[3 * i - 2], reply[3 * i - 1], reply[3 * i] = 0, 0, -1
  end
  return reply
end

-- Every lock's token: the server clock in microseconds, or one above its fence if that is not below
-- the clock (see fence.lua's issue_token); the fence is swapped for the clock in one write.
local t = redis.call('TIME')
local now_text = t[1] .. string.rep('0', 6 - #t[2]) .. t[2]
local now_us = tonumber(now_text)
for i, key in ipairs(KEYS) do
  local old = redis.call('SET', key .. ':fence', now_text, 'PX', retention, 'GET')
  local token = now_us
  local last = old and tonumber(string.match(old, '^(%d+)'))
  if last and last >= now_us then
    token = last + 1
    redis.call('SET', key .. ':fence', digits(token), 'PX', retention)
  end
  redis.call('SET', key, lock_value(ARGV[2 + i], token, 1, lease, now_text, '-'), 'PX', lease)
  reply[3 * i - 2], reply[3 * i - 1], reply[3 * i] = 1, token, 1
end
return reply

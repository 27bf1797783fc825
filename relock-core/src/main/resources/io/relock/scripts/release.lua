-- release.lua: release one hold; at the last one, free the lock and hand it to the next waiter.
--
-- KEYS[1] lock hash, KEYS[2] fence, KEYS[3] wait queue, KEYS[4] waiter table (see handoff.lua)
-- ARGV[1] owner id of the caller
-- ARGV[2] how long the fence key is kept after its last use, in milliseconds
-- ARGV[3] '1' to release every hold at once (the last unlock(), a lease close, an abandoned or
--         lost hold); '0' to drop one of several holds, which never frees the lock: the client
--         sends it only while it counts more than one hold of its own, and the count kept here
--         may run ahead of the client's after a lost reply, so it never goes below 1
-- ARGV[4] a queued owner of the caller's own client to pass the lock to directly, or ''
-- ARGV[5] '1' to pass to ARGV[4] even if others queued first; '0' to pass only if it is first in
--         line (the client bounds how often in a row it says '1', so other clients get turns)
--
-- Returns {code, n}:
--   { 1, count}  one of several holds dropped ('0'); count is what Redis still counts (at least 1)
--   { 2, 1}      released, and handed to the next waiter
--   { 2, 0}      released, nobody waits: the lock is free
--   { 3, token}  passed to the owner named in ARGV[4], with this new fencing token
--   { 0, 0}      held by another owner: not touched
--   {-1, 0}      nobody holds it (the caller's lease expired)

-- @include handoff.lua
-- @include holds.lua

local early = refuse_or_drop_one(ARGV[1], ARGV[3])
if early then
  return early
end
local successor = ARGV[4] or ''
local now_ms, now_us
if successor ~= '' then
  now_ms, now_us = server_time()
  local entry = redis.call('HGET', KEYS[4], successor)
  local live = entry and tonumber(string.match(entry, '^(%d+) ')) > now_ms
  if live and ARGV[5] ~= '1' then
    live = first_live_waiter(now_ms) == successor
  end
  if live then
    -- Within one client: no notification needed, the caller completes the successor itself.
    forget_waiter(successor)
    local token = string.format('%d', next_token(now_us, ARGV[2]))
    redis.call('HSET', KEYS[1], 'o', successor, 'c', 1, 't', token)
    redis.call('PEXPIRE', KEYS[1], string.match(entry, '^%d+ (%d+) '))
    return {3, tonumber(token)}
  end
end
redis.call('DEL', KEYS[1])
if not now_ms then
  -- Nobody queued, the usual case without contention: no need to read the server clock.
  if redis.call('EXISTS', KEYS[3]) == 0 then
    return {2, 0}
  end
  now_ms, now_us = server_time()
end
return {2, grant_next(now_ms, now_us, ARGV[2]) and 1 or 0}

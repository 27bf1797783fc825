-- lock_view.lua: how lock_info.lua and list_locks.lua read one lock, changing nothing.
-- Not a script of its own: the loader inlines it where a script says "-- @include lock_view.lua".
-- Everything relock's inspection knows about the layout of a lock in Redis is here and in
-- LockInspector, which reads the replies (see lockvalue.lua, fence.lua and queue.lua for what the
-- keys hold).

-- Server time in milliseconds, to tell live waiter entries from expired ones.
local function now_millis()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- The fields of the exclusive lock stored at `lock` (see lockvalue.lua), or nothing: the key is
-- absent, or holds something else (a semaphore's or read-write lock's marker, another program's
-- value), which inspection reads as free rather than fail.
local function lock_fields(lock)
  local v = redis.call('GET', lock)
  if type(v) ~= 'string' then
    return nil
  end
  return string.match(v, '^(%S+) (%d+) (%d+) %d+ (%d+) [w-] %S+$')
end

-- One lock as {owner, hold count, fencing token, pttl ms, last token issued, since us, waiter...}:
-- owner is '' (count, token and since 0, pttl -2) when the lock is free. Waiters are the owner ids
-- whose queue entry is still live, in the order they will be served. mode 'queue' reads the wait
-- queue (queue: sorted set by arrival; entries: hash owner -> "<expires ms> ..."); mode 'node' is
-- a Redlock master, which has no queue, and whose fence key holds the last token written there for
-- every lock name.
local function read_lock(lock, fence, queue, entries, mode)
  local owner, token, count, since = lock_fields(lock)
  local view
  if owner then
    view = {owner, tonumber(count), tonumber(token), redis.call('PTTL', lock)}
  else
    view = {'', 0, 0, -2}
  end
  view[5] = tonumber(string.match(redis.call('GET', fence) or '0', '^(%d+)') or '0')
  view[6] = tonumber(since or '0')
  if mode == 'queue' and redis.call('EXISTS', queue) == 1 then
    local now = now_millis()
    for _, waiter in ipairs(redis.call('ZRANGE', queue, 0, -1)) do
      local entry = redis.call('HGET', entries, waiter)
      if entry and tonumber(string.match(entry, '^(%d+) ')) > now then
        view[#view + 1] = waiter
      end
    end
  end
  return view
end

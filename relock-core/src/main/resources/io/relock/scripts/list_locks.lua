-- list_locks.lua: one SCAN page of the locks held on this server, each read as lock_info.lua
-- reads one (Relock#list). On a Redis Cluster it runs on every primary, each with its own cursor.
--
-- KEYS[]: none. The keys read are those SCAN found on this server, so they are its own, also on a
--         cluster node; each lock's queue keys share its hash tag, and so its slot.
-- ARGV[1] the SCAN cursor: '0' to start
-- ARGV[2] the MATCH pattern over lock keys: the escaped key prefix, then '{', a glob over encoded
--         lock names, '}' (so the fence and queue keys, which end otherwise, never match)
-- ARGV[3] the SCAN COUNT: how much of the keyspace one page looks at
-- ARGV[4] 'queue', or 'node' on a Redlock master (see lock_info.lua)
-- ARGV[5] on a Redlock master, its fence key; else ''
--
-- Returns {next cursor, {lock key, <lock_info.lua's reply>}, ...}: one entry per held lock found
-- on this page (a free lock is left out); the listing is complete when the cursor is '0'.

-- @include lock_view.lua

local page = redis.call('SCAN', ARGV[1], 'MATCH', ARGV[2], 'COUNT', ARGV[3])
local reply = {page[1]}
for _, key in ipairs(page[2]) do
  -- A key of another type under the prefix is not relock's lock: leave it alone.
  if redis.call('TYPE', key)['ok'] == 'string' then
    local fence = ARGV[4] == 'node' and ARGV[5] or key .. ':fence'
    local view = read_lock(key, fence, key .. ':q', key .. ':qi', ARGV[4])
    if view[1] ~= '' then
      table.insert(view, 1, key)
      reply[#reply + 1] = view
    end
  end
end
return reply

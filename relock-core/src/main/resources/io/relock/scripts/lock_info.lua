-- lock_info.lua: what Redis holds for one lock, changing nothing (Relock#inspect).
--
-- KEYS[1] lock, KEYS[2] fence, KEYS[3] wait queue, KEYS[4] waiter table (see fence.lua, queue.lua);
--         on a Redlock master (ARGV[1] 'node'), KEYS[2] is the master's fence for every lock name
--         (see redlock_acquire.lua) and KEYS[3], KEYS[4] are not read
-- ARGV[1] 'queue' to read the wait queue too; 'node' on a Redlock master, which has none
--
-- Returns {owner, hold count, fencing token, pttl ms, last token issued, since us, waiter...} (see
-- read_lock in lock_view.lua): owner '' when the lock is free.

-- @include lock_view.lua

return read_lock(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1])

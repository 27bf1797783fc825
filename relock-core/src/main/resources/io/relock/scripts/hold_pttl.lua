-- hold_pttl.lua: how long one hold of a read-write lock (or a semaphore) has left; the client reads
-- it after a notice that an operator freed the lane the hold was in (readwrite_state.lua 'force').
--
-- KEYS[1] the hold's own key ('<name key>:h:<owner>', see holders.lua)
-- No ARGV.
--
-- Returns {pttl}: the key's time to live in milliseconds, -2 when the hold is gone.

return {redis.call('PTTL', KEYS[1])}

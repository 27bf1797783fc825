-- read.lua: the read half of a critical section's read-modify-write, on three counters at once.
--
-- The three counters see the same reads and writes and differ only in how they use the fencing
-- token, so a run shows side by side what each design loses:
--   fenced      the token is checked on the read and on the write (the design relock recommends)
--   write-only  the token is checked on the write only (the usual description of fencing)
--   unfenced    no token at all (what a lock alone gives)
--
-- KEYS[1] fenced counter: hash {value, seen = highest token that read or wrote, wtok = token of
--         the last accepted write, writes = accepted writes, rseen = highest token a read-write
--         lock's reader read with (see reader.lua; absent for an exclusive lock)}
-- KEYS[2] write-only counter: hash {value, wtok, writes}
-- KEYS[3] unfenced counter: hash {value, writes}
-- ARGV[1] fencing token of the caller (decimal)
--
-- Returns {fenced, fenced value, write-only value, unfenced value}:
--   fenced = 1  the read is accepted and the token recorded as seen: from now on no older token
--               may write, so nobody can overwrite what this caller is about to write back
--   fenced = 0  refused, a newer token has already read or written, or a reader of a read-write
--               lock has read with this token or a newer one (it was granted after this writer, so
--               this writer's lock is gone); the fenced value is then the highest token seen, and
--               the caller must not write the fenced counter

local token = tonumber(ARGV[1])
local seen = tonumber(redis.call('HGET', KEYS[1], 'seen') or '0')
local rseen = tonumber(redis.call('HGET', KEYS[1], 'rseen') or '0')
local fenced, fvalue
if token < seen or token <= rseen then
  fenced, fvalue = 0, math.max(seen, rseen)
else
  redis.call('HSET', KEYS[1], 'seen', ARGV[1])
  fenced, fvalue = 1, tonumber(redis.call('HGET', KEYS[1], 'value') or '0')
end
local wvalue = tonumber(redis.call('HGET', KEYS[2], 'value') or '0')
local uvalue = tonumber(redis.call('HGET', KEYS[3], 'value') or '0')
return {fenced, fvalue, wvalue, uvalue}

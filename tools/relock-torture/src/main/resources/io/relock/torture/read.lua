-- read.lua: the read half of a critical section's read-modify-write, on three counters at once.
-- Callers: an exclusive lock's holder and a read-write lock's writer (a reader uses reader.lua).
--
-- The three counters see the same reads and writes and differ only in how they use the fencing
-- token, so a run shows side by side what each design loses:
--   fenced      the token is checked on the read and on the write (the design relock recommends)
--   write-only  the token is checked on the write only (the usual description of fencing)
--   unfenced    no token at all (what a lock alone gives)
--
-- The fenced counter applies one rule, the same to every operation (this read, write.lua's write
-- and reader.lua's read): an operation whose token is lower than the highest token the counter has
-- accepted is refused; an equal or higher one is accepted and raises that highest token. Equal
-- tokens must pass, because the readers of one read epoch of a read-write lock share one token.
--
-- KEYS[1] fenced counter: hash {value, seen = highest token accepted (read or written), writes =
--         accepted writes}
-- KEYS[2] write-only counter: hash {value, wtok = token of the last accepted write, writes}
-- KEYS[3] unfenced counter: hash {value, writes}
-- ARGV[1] fencing token of the caller (decimal)
--
-- Returns {fenced, fenced value, write-only value, unfenced value}:
--   fenced = 1  accepted (token >= seen), and seen is now the caller's token: from now on no lower
--               token can read or write, so nobody can overwrite what this caller is about to write
--               back
--   fenced = 0  refused (token < seen): a higher token has already been accepted, so this caller's
--               lock is gone; the fenced value is then seen, and the caller must not write the
--               fenced counter
-- The write-only and unfenced values are read without any check.

local token = tonumber(ARGV[1])
local seen = tonumber(redis.call('HGET', KEYS[1], 'seen') or '0')
local fenced, fvalue
if token < seen then
  fenced, fvalue = 0, seen
else
  redis.call('HSET', KEYS[1], 'seen', ARGV[1])
  fenced, fvalue = 1, tonumber(redis.call('HGET', KEYS[1], 'value') or '0')
end
local wvalue = tonumber(redis.call('HGET', KEYS[2], 'value') or '0')
local uvalue = tonumber(redis.call('HGET', KEYS[3], 'value') or '0')
return {fenced, fvalue, wvalue, uvalue}

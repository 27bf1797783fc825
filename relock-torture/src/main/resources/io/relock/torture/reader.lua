-- reader.lua: a read-write lock's reader reads the counters (readers never write them).
--
-- KEYS[1..3] the fenced, write-only and unfenced counters (see read.lua)
-- ARGV[1] fencing token of the reader (decimal)
--
-- A read hold carries the token of the last write granted before it (or, where Redis lost that,
-- a serial above every earlier token), so two things follow from the token alone:
--   * a reader whose token is below one a writer has already read or written with (seen) was
--     granted before that writer: the writer was granted while the reader still read, so the
--     reader's lock is gone, and its read is refused (as read.lua refuses an older writer);
--   * a writer whose token is not above the reader's was granted before the reader: the reader
--     was granted while the writer still worked, so the writer's lock is gone. The accepted read
--     raises rseen, and read.lua and write.lua refuse such a writer from then on.
-- A legitimate hold is never refused: Redis grants a writer only once no reader holds the lock,
-- and a reader only once no writer does.
--
-- Returns {fenced, fenced value, write-only value, unfenced value}: fenced = 1 accepted, 0 refused
-- (the fenced value is then the newer token seen).

local token = tonumber(ARGV[1])
local seen = tonumber(redis.call('HGET', KEYS[1], 'seen') or '0')
local fenced, fvalue
if token < seen then
  fenced, fvalue = 0, seen
else
  local rseen = tonumber(redis.call('HGET', KEYS[1], 'rseen') or '0')
  if token > rseen then
    redis.call('HSET', KEYS[1], 'rseen', ARGV[1])
  end
  fenced, fvalue = 1, tonumber(redis.call('HGET', KEYS[1], 'value') or '0')
end
local wvalue = tonumber(redis.call('HGET', KEYS[2], 'value') or '0')
local uvalue = tonumber(redis.call('HGET', KEYS[3], 'value') or '0')
return {fenced, fvalue, wvalue, uvalue}

-- reader.lua: a read-write lock's reader reads the counters (readers never write them).
--
-- KEYS[1..3] the fenced, write-only and unfenced counters (see read.lua)
-- ARGV[1] fencing token of the reader (decimal)
--
-- The fenced counter applies the one rule of read.lua: the read is refused if its token is lower
-- than the highest token accepted (seen), else accepted, and seen becomes max(seen, token). The
-- rule needs no knowledge of who is a reader, because of how relock issues a read-write lock's
-- tokens:
--   * a write hold gets a new serial, larger than every earlier token of the name;
--   * a reader granted while no other reader holds opens a read epoch: a new serial, larger than
--     every earlier token of the name (so above every earlier writer's); a reader granted while
--     other readers hold joins their epoch and gets the very same token. A downgrade (the writer
--     takes the read lock) opens an epoch above its own write token.
-- So whichever of a reader and a writer Redis granted later has the larger token, and a stale
-- holder (one whose lock is gone) is refused once the later one has been accepted: a writer
-- granted after the readers of an epoch, a reader after a writer, a writer after a writer. The
-- readers of one epoch share a token and are all accepted. A legitimate hold is never refused:
-- Redis grants a writer only once no reader holds the lock, and a reader only once no writer does.
-- (A thread that downgraded holds two tokens, the read one above the write one: it must do its
-- writes with the write token before it uses the read token here. The workloads never downgrade.)
--
-- Returns {fenced, fenced value, write-only value, unfenced value}: fenced = 1 accepted, 0 refused
-- (the fenced value is then the higher token seen).

local token = tonumber(ARGV[1])
local seen = tonumber(redis.call('HGET', KEYS[1], 'seen') or '0')
local fenced, fvalue
if token < seen then
  fenced, fvalue = 0, seen
else
  if token > seen then
    redis.call('HSET', KEYS[1], 'seen', ARGV[1])
  end
  fenced, fvalue = 1, tonumber(redis.call('HGET', KEYS[1], 'value') or '0')
end
local wvalue = tonumber(redis.call('HGET', KEYS[2], 'value') or '0')
local uvalue = tonumber(redis.call('HGET', KEYS[3], 'value') or '0')
return {fenced, fvalue, wvalue, uvalue}

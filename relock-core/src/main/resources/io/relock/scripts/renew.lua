-- renew.lua: the watchdog's batch renewal; extends every listed lock its owner still holds.
--
-- KEYS[1..n] lock hashes (see handoff.lua)
-- ARGV[1]     the new lease in milliseconds
-- ARGV[2..n+1] the owner id expected in KEYS[i] (ARGV[i + 1])
--
-- Returns {r1, ..., rn}: ri = 1 if KEYS[i] was still held by its owner and was extended,
-- 0 if it was gone or held by someone else (the owner's lease is lost).

local result = {}
for i = 1, #KEYS do
  if redis.call('HGET', KEYS[i], 'o') == ARGV[i + 1] then
    redis.call('PEXPIRE', KEYS[i], ARGV[1])
    result[i] = 1
  else
    result[i] = 0
  end
end
return result

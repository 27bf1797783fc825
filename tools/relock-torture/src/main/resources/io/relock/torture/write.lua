-- write.lua: the write half of a critical section's read-modify-write: each counter is set to what
-- the caller read plus one (never incremented in place, so a write based on a stale read shows up
-- as a lost update). See read.lua for the three counters.
--
-- KEYS[1] fenced counter, KEYS[2] write-only counter, KEYS[3] unfenced counter (as in read.lua)
-- KEYS[4] log of accepted fenced writes: a list of "<token> <base> <hold id>", oldest first
-- ARGV[1] fencing token of the caller (decimal)
-- ARGV[2] fenced value the caller read, or '' if its fenced read was refused (fenced write skipped)
-- ARGV[3] write-only value the caller read
-- ARGV[4] unfenced value the caller read
-- ARGV[5] the caller's hold id, for the log
--
-- Returns {fenced, write-only}, each 1 accepted, 0 refused (a higher token came first), -1 skipped.
-- The fenced write follows the one rule of read.lua and nothing else: accepted iff the token is not
-- lower than the highest token the fenced counter has accepted (token >= seen); seen then becomes
-- the token (it was at most the token already) and the write is logged. The caller's own read
-- passed the same rule, so a write is accepted only if no higher token has read or written in
-- between. The write-only write is accepted if the token is above the last accepted write-only
-- write's (wtok). The unfenced write always is.

local token = tonumber(ARGV[1])
local fenced = -1
if ARGV[2] ~= '' then
  local seen = tonumber(redis.call('HGET', KEYS[1], 'seen') or '0')
  if token >= seen then
    redis.call('HSET', KEYS[1], 'value', tonumber(ARGV[2]) + 1, 'seen', ARGV[1])
    redis.call('HINCRBY', KEYS[1], 'writes', 1)
    redis.call('RPUSH', KEYS[4], ARGV[1] .. ' ' .. ARGV[2] .. ' ' .. ARGV[5])
    fenced = 1
  else
    fenced = 0
  end
end

local wonly = 0
if token > tonumber(redis.call('HGET', KEYS[2], 'wtok') or '0') then
  redis.call('HSET', KEYS[2], 'value', tonumber(ARGV[3]) + 1, 'wtok', ARGV[1])
  redis.call('HINCRBY', KEYS[2], 'writes', 1)
  wonly = 1
end

redis.call('HSET', KEYS[3], 'value', tonumber(ARGV[4]) + 1)
redis.call('HINCRBY', KEYS[3], 'writes', 1)
return {fenced, wonly}

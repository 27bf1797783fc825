-- permit_enter.lua: a semaphore's permit holder enters the resource, which admits at most as many
-- holders at once as the semaphore has permits.
--
-- KEYS[1] the holders inside: a sorted set of hold ids, scored by their fencing tokens
-- KEYS[2] counts: hash {entered, refused, evicted, left, max_inside}
-- ARGV[1] fencing token of the caller's permit (decimal)
-- ARGV[2] the caller's hold id
-- ARGV[3] the semaphore's permits
--
-- What fencing means for a permit: each permit has a token of its own, larger than every earlier
-- one of the name, and the store keeps the holders inside by token. Redis never grants more
-- permits at once than the semaphore has, so when it is full and one more holder enters, at least
-- one of them lost its permit (its lease ran out while it was paused, cut off or dead). The store
-- cannot tell which; it drops the oldest token, as fencing drops the older of two holders of an
-- exclusive lock: the caller, if its token is older than every holder's inside (it is refused),
-- else the holder with the oldest token (its leave is then refused). So there are never more
-- holders inside than permits. A holder dropped may have been a legitimate one (the holder that
-- lost its permit had a newer token): that costs it its work, never the bound. Without faults
-- nobody is dropped: a holder leaves (permit_leave.lua) before it gives its permit back.
--
-- Returns {admitted, holders inside}: admitted = 1 (the caller is inside), 0 refused.

local token = tonumber(ARGV[1])
local permits = tonumber(ARGV[3])
local inside = redis.call('ZCARD', KEYS[1])
if inside >= permits then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  if token < tonumber(oldest[2]) then
    redis.call('HINCRBY', KEYS[2], 'refused', 1)
    return {0, inside}
  end
  redis.call('ZREM', KEYS[1], oldest[1])
  redis.call('HINCRBY', KEYS[2], 'evicted', 1)
  inside = inside - 1
end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
redis.call('HINCRBY', KEYS[2], 'entered', 1)
inside = inside + 1
if inside > tonumber(redis.call('HGET', KEYS[2], 'max_inside') or '0') then
  redis.call('HSET', KEYS[2], 'max_inside', inside)
end
return {1, inside}

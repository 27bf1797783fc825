-- permit_leave.lua: a semaphore's permit holder leaves the resource (see permit_enter.lua); its
-- work counts only if it is still inside, that is, if no newer holder dropped it meanwhile.
--
-- KEYS[1] the holders inside, KEYS[2] counts (as in permit_enter.lua)
-- ARGV[1] the caller's hold id
--
-- Returns {left}: 1 accepted (the caller was inside and left), 0 refused (it had been dropped).

if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then
  redis.call('HINCRBY', KEYS[2], 'left', 1)
  return {1}
end
return {0}

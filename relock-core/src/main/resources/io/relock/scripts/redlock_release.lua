-- redlock_release.lua: one Redlock node's part of a release (see RedlockDriver).
--
-- KEYS[1] the lock, KEYS[2] the set of client channels to tell (see redlock_acquire.lua)
-- ARGV[1] owner id of the caller
-- ARGV[2] '1' to release every hold, '0' to drop one of several (never below 1)
-- ARGV[3] '1' to free the lock whoever holds it (force unlock), else '0'
-- ARGV[4] an attempt, or '': a give-back frees the hold only if that attempt took it (or found it);
--         a later attempt of the same owner may have taken it again meanwhile
-- ARGV[5] for a force unlock, the channel prefix of relock's clients ('<key prefix>client:'): the
--         holder's client is told "lost <owner> <lock key>" (see force_unlock.lua); else ''
--
-- Returns {code, n}:
--   { 1, count} one of several holds dropped; count is what this node still counts
--   { 2, held}  freed (held: 1 if an owner held it); every channel in KEYS[2] is told
--               "free <lock key>", and the set is emptied
--   { 0, 0}     held by another owner: not touched
--   {-1, 0}     nobody holds it here

-- @include lockvalue.lua

if ARGV[3] ~= '1' then
  local holder, token, count, lease, since, waiters, attempt = parse_lock(redis.call('GET', KEYS[1]))
  if not holder then
    return {-1, 0}
  end
  if holder ~= ARGV[1] then
    return {0, 0}
  end
  if ARGV[2] ~= '1' then
    count = math.max(1, tonumber(count) - 1)
    keep_lock(holder, token, count, lease, since, waiters, attempt)
    return {1, count}
  end
  if ARGV[4] ~= '' and attempt ~= ARGV[4] then
    return {0, 0}
  end
end
if ARGV[5] ~= '' then
  local v = redis.call('GET', KEYS[1])
  local holder = v and string.match(v, '^(%S+) ')
  local client = holder and string.match(holder, '^([^:]+):')
  if client then
    redis.pcall('PUBLISH', ARGV[5] .. client, 'lost ' .. holder .. ' ' .. KEYS[1]) -- best effort, as there
  end
end
local held = redis.call('DEL', KEYS[1])
for _, channel in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  redis.call('PUBLISH', channel, 'free ' .. KEYS[1])
end
redis.call('DEL', KEYS[2])
return {2, held}

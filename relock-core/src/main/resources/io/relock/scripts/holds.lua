-- holds.lua: the owner check and the partial release shared by release.lua and
-- redlock_release.lua. Not a script of its own: the loader inlines it where a script says
-- "-- @include holds.lua". KEYS[1] is the lock hash {o = owner id, c = hold count, t = token}.

-- What a release by `owner` answers before freeing anything: {-1, 0} if nobody holds the lock,
-- {0, 0} if another owner does, {1, count} once one of several holds is dropped (`all` ~= '1';
-- the count never goes below 1); nil if the caller holds it and releases every hold.
local function refuse_or_drop_one(owner, all)
  local holder = redis.call('HGET', KEYS[1], 'o')
  if not holder then
    return {-1, 0}
  end
  if holder ~= owner then
    return {0, 0}
  end
  if all ~= '1' then
    local count = tonumber(redis.call('HGET', KEYS[1], 'c'))
    if count > 1 then
      count = redis.call('HINCRBY', KEYS[1], 'c', -1)
    end
    return {1, count}
  end
  return nil
end

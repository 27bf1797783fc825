-- view_item.lua: a consistent snapshot of an item and its orders.
--
-- KEYS[1] item hash (fields: stock, initial, fence)
-- KEYS[2] order list of the item
--
-- Returns {} when there is no such item, else {stock, initial, fence, {order records...}}
-- (fence is 0 when no fenced purchase has happened yet).

if redis.call('EXISTS', KEYS[1]) == 0 then
  return {}
end
local v = redis.call('HMGET', KEYS[1], 'stock', 'initial', 'fence')
return {tonumber(v[1]), tonumber(v[2]), tonumber(v[3] or '0'), redis.call('LRANGE', KEYS[2], 0, -1)}

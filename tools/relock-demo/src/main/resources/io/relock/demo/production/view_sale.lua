-- view_sale.lua: a sale as it stands in Redis.
--
-- KEYS[1] sale hash (fields: stock, initial, taken, sale, partitions)
--
-- Returns {} when the item has no sale, else {stock, initial, taken, sale, partitions}.

if redis.call('EXISTS', KEYS[1]) == 0 then
  return {}
end
local v = redis.call('HMGET', KEYS[1], 'stock', 'initial', 'taken', 'sale', 'partitions')
return {tonumber(v[1]), tonumber(v[2]), tonumber(v[3]), v[4], tonumber(v[5])}

-- start_sale.lua: start a new sale of an item: its stock, a new sale id, no units taken, and a consumer
-- group on each of its order streams (created empty if missing). Entries of an earlier sale still in
-- the streams stay there until the order writers have stored them: a new sale loses no order.
--
-- KEYS[1]     sale hash (fields: stock, initial, taken, sale, partitions)
-- KEYS[2]     the sale's fault plan (hash), cleared
-- KEYS[3]     the order writers' counters (hash), cleared
-- KEYS[4..]   the order streams, one per partition, in partition order
-- ARGV[1]     the stock
-- ARGV[2]     the consumer group's name
--
-- Returns the new sale id (string): the Redis server's clock in microseconds, so ids keep growing
-- across restarts and never repeat in a database that outlives this Redis.

local now = redis.call('TIME')
local sale = now[1] .. string.format('%06d', tonumber(now[2]))
redis.call('DEL', KEYS[2], KEYS[3])
redis.call('HSET', KEYS[1], 'stock', ARGV[1], 'initial', ARGV[1], 'taken', 0, 'sale', sale,
  'partitions', #KEYS - 3)
for i = 4, #KEYS do
  -- BUSYGROUP: the group exists from an earlier sale, with its pending entries; keep it.
  redis.pcall('XGROUP', 'CREATE', KEYS[i], ARGV[2], '0', 'MKSTREAM')
end
return sale

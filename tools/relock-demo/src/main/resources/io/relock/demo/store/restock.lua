-- restock.lua: start a new sale of an item: set its stock, clear its orders. The fence is kept, since
-- fencing tokens only ever grow.
--
-- KEYS[1] item hash (fields: stock, initial, fence)
-- KEYS[2] order list of the item
-- ARGV[1] the stock
--
-- Returns 1.

redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[1], 'stock', ARGV[1], 'initial', ARGV[1])
return 1

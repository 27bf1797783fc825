-- take_unit.lua: one buyer's purchase in the production strategy. Takes one unit if any is left and
-- queues its order on one of the item's streams, in one step: a unit is taken exactly when its order
-- is queued, so a crash can neither take a unit without an order nor queue an order without a unit.
-- Partitions are filled in turn: unit n goes to partition (n - 1) mod the number of streams.
--
-- KEYS[1]     sale hash (fields: stock, initial, taken, sale, partitions)
-- KEYS[2..]   the order streams, one per partition, in partition order
-- ARGV[1]     the item id (for the order id and the entry)
-- ARGV[2]     the service instance taking the order
--
-- Returns:
--   {1, unit, stock left, sale, partition, entry id, order id}  taken and queued
--   {0, sale}                                                 sold out; nothing changed
--   {-1}                                                      no sale of this item
--   an error if the sale was started with another number of partitions than KEYS has streams

local v = redis.call('HMGET', KEYS[1], 'stock', 'sale', 'partitions')
if not v[2] then
  return {-1}
end
if tonumber(v[3]) ~= #KEYS - 1 then
  return redis.error_reply('the sale has ' .. v[3] .. ' partitions, the caller named ' .. (#KEYS - 1))
end
if tonumber(v[1]) <= 0 then
  return {0, v[2]}
end
local left = redis.call('HINCRBY', KEYS[1], 'stock', -1)
local unit = redis.call('HINCRBY', KEYS[1], 'taken', 1)
local partition = (unit - 1) % (#KEYS - 1)
local order = ARGV[1] .. '-' .. v[2] .. '-' .. unit
local now = redis.call('TIME')
local at = now[1] .. string.format('%03d', math.floor(tonumber(now[2]) / 1000))
local id = redis.call('XADD', KEYS[2 + partition], '*', 'order', order, 'item', ARGV[1], 'sale', v[2],
  'unit', unit, 'instance', ARGV[2], 'at', at)
return {1, unit, left, v[2], partition, id, order}

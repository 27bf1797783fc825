-- record_sale.lua: the write of a purchase, all or nothing: store the new stock and append the order.
-- A fenced write is accepted only if its token is not older than the newest token the item has seen
-- (an equal token is the same lease that made the fenced read).
--
-- KEYS[1] item hash (fields: stock, initial, fence)
-- KEYS[2] order list of the item
-- ARGV[1] the new stock (what the caller read, minus one)
-- ARGV[2] fencing token of the caller's lease (decimal), or '' for an unfenced write
-- ARGV[3] the order record (JSON text)
--
-- Returns {code, n}:
--   { 1, orders}  recorded; n is the number of orders now, which is the new order's number
--   { 0, fence}   refused: the item has already seen a newer token (n); nothing changed
--   {-1, 0}       no such item (removed meanwhile); nothing changed

if redis.call('EXISTS', KEYS[1]) == 0 then
  return {-1, 0}
end
if ARGV[2] ~= '' then
  local fence = tonumber(redis.call('HGET', KEYS[1], 'fence') or '0')
  if tonumber(ARGV[2]) < fence then
    return {0, fence}
  end
  redis.call('HSET', KEYS[1], 'fence', ARGV[2])
end
redis.call('HSET', KEYS[1], 'stock', ARGV[1])
return {1, redis.call('RPUSH', KEYS[2], ARGV[3])}

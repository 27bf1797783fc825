-- read_stock.lua: read an item's stock at the start of a purchase. A fenced read first registers the
-- caller's fencing token, so that a holder whose lease was lost cannot write after a newer holder read.
--
-- KEYS[1] item hash (fields: stock, initial, fence)
-- ARGV[1] fencing token of the caller's lease (decimal), or '' for an unfenced read
--
-- Returns {code, n}:
--   { 1, stock}  the stock; a fenced read has raised the item's fence to the caller's token
--   { 0, fence}  refused: the item has already seen a newer token (n); nothing changed
--   {-1, 0}      no such item
--
-- Tokens are compared as Lua numbers: exact below 2^53, far above relock's microsecond tokens.

if redis.call('EXISTS', KEYS[1]) == 0 then
  return {-1, 0}
end
if ARGV[1] ~= '' then
  local fence = tonumber(redis.call('HGET', KEYS[1], 'fence') or '0')
  if tonumber(ARGV[1]) < fence then
    return {0, fence}
  end
  redis.call('HSET', KEYS[1], 'fence', ARGV[1])
end
return {1, tonumber(redis.call('HGET', KEYS[1], 'stock'))}

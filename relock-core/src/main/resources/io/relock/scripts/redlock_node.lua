-- redlock_node.lua: writes a Redlock node's marker (see redlock_acquire.lua), once; or reads the
-- node's fence.
--
-- KEYS[1] the node's marker, KEYS[2] the node's fence
-- ARGV[1] 'read'    only read the fence: returns {fence}
--         'init'    first use of a node set that is empty everywhere: the node takes part at once
--         'recover' the node lost its data while the others kept theirs: it takes part only after
--                   ARGV[3] ms (the delayed restart), and its fence starts at ARGV[2], the highest
--                   fence read from enough of the other nodes that every token written to a
--                   majority before the loss is covered
-- ARGV[2] the fence floor ('recover')
-- ARGV[3] the delay in milliseconds ('recover')
--
-- Either way the fence is raised to at least the server clock in microseconds, so that tokens
-- still increase should every node lose its data at once (if the clocks do not step back).
-- Returns {1} if the marker was written, {0} if another client wrote it first (nothing changed).

if ARGV[1] == 'read' then
  return {tonumber(redis.call('GET', KEYS[2]) or '0')}
end
if redis.call('EXISTS', KEYS[1]) == 1 then
  return {0}
end
local t = redis.call('TIME')
local now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local floor = tonumber(t[1]) * 1000000 + tonumber(t[2])
local until_ms = now_ms
if ARGV[1] == 'recover' then
  floor = math.max(floor, tonumber(ARGV[2]))
  until_ms = now_ms + tonumber(ARGV[3])
end
if tonumber(redis.call('GET', KEYS[2]) or '0') < floor then
  redis.call('SET', KEYS[2], string.format('%d', floor))
end
redis.call('HSET', KEYS[1], 'since', now_ms, 'until', until_ms)
return {1}

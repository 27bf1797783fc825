-- server_info.lua: what a client checks about the server when it starts.
--
-- KEYS[] and ARGV[]: none. INFO works inside a script even where CONFIG is disabled (managed
-- services).
--
-- Returns {maxmemory policy, redis version}, each '' if INFO does not say.

local memory = redis.call('INFO', 'memory')
local server = redis.call('INFO', 'server')
return {string.match(memory, 'maxmemory_policy:([^\r\n]+)') or '', string.match(server, 'redis_version:([^\r\n]+)') or ''}

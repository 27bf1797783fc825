-- server_info.lua: what a client checks about the server when it starts.
--
-- KEYS[] and ARGV[]: none. INFO works inside a script even where CONFIG is disabled (managed
-- services).
--
-- Returns {maxmemory policy}, '' if INFO does not say.

local info = redis.call('INFO', 'memory')
return {string.match(info, 'maxmemory_policy:([^\r\n]+)') or ''}

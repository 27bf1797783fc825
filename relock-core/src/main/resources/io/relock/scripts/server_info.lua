-- server_info.lua: what a client checks about the server when it starts.
--
-- KEYS[] and ARGV[]: none. INFO works inside a script even where CONFIG is disabled (managed
-- services).
--
-- Returns {maxmemory policy, Redis version}, each '' if INFO does not say.

local info = redis.call('INFO', 'server') .. redis.call('INFO', 'memory')
return {string.match(info, 'maxmemory_policy:([^\r\n]+)') or '',
        string.match(info, 'redis_version:([^\r\n]+)') or ''}

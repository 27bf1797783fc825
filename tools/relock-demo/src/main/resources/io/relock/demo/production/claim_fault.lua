-- claim_fault.lua: the demo's fault plan for one sale, claimed by the order writers as they reach its
-- two points. First the writer that has just committed a batch of the planned partition claims
-- 'kill' (the demo then kills it before it acknowledges the batch); then a writer of the same
-- partition that is about to write a batch, and is not the one killed, claims 'pause' (the demo then
-- freezes it until its lease has run out and a successor has written). Each is claimed once.
--
-- KEYS[1] the sale's fault plan (hash: partition, state = kill | pause | done, killed = worker name)
-- ARGV[1] the point the writer has reached: 'after-commit' or 'before-write'
-- ARGV[2] the writer's partition
-- ARGV[3] the writer's name
--
-- Returns {'kill'} or {'pause'} to the writer that claims that fault, else {}.

local f = redis.call('HMGET', KEYS[1], 'partition', 'state', 'killed')
if f[1] ~= ARGV[2] then
  return {}
end
if f[2] == 'kill' and ARGV[1] == 'after-commit' then
  redis.call('HSET', KEYS[1], 'state', 'pause', 'killed', ARGV[3])
  return {'kill'}
end
if f[2] == 'pause' and ARGV[1] == 'before-write' and f[3] ~= ARGV[3] then
  redis.call('HSET', KEYS[1], 'state', 'done')
  return {'pause'}
end
return {}

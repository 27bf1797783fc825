-- queue.lua: a lock name's wait queue, shared by every lock script that lets callers wait. Not a
-- script of its own: the loader inlines it where a script says "-- @include queue.lua", once.
-- @requires lockvalue.lua
-- Keys, named after the script's one key KEYS[1] and so in its Redis Cluster slot:
--   QUEUE   a sorted set of waiter owner ids, scored by arrival (server time, us)
--   WAITERS a hash owner id -> "<expires ms> <lease ms> <claim ms> [<lane> ]<channel>"
--           (expires: server time after which the entry is dead unless refreshed; claim: how long a
--           granted lock is first kept before the waiter confirms it; lane: 'r' or 'w' for a
--           read-write lock's readers and writers, absent for other kinds; channel: where to
--           notify: a client's channel, for PUBLISH; or '!', for SPUBLISH on the lock's own
--           channel "<KEYS[1]>:n", which shares its slot (sharded pub/sub on a Redis 7+ Cluster))
-- A waiter is told of its grant with "<serial>[:<token>] <owner> <state>" on its channel: serial
-- tells the grant from the owner's earlier ones (a reply that found the owner not holding the lock
-- says up to which serial grants have ended); it is the grant's token, written alone, for every
-- grant but a read lock's (see readwrite.lua). state names the client's local state of the lock
-- (KEYS[1], with '#s', '#r' or '#w' for a semaphore and a read-write lock's two lanes).

local QUEUE, WAITERS = KEYS[1] .. ':q', KEYS[1] .. ':qi'

local function forget_waiter(waiter)
  redis.call('ZREM', QUEUE, waiter)
  redis.call('HDEL', WAITERS, waiter)
end

-- The longest-waiting waiter whose entry has not expired; expired entries met on the way are
-- removed, so a waiter that died holds nobody up beyond its entry's expiry.
local function first_live_waiter(now_ms)
  while true do
    local head = redis.call('ZRANGE', QUEUE, 0, 0)
    if #head == 0 then
      return false
    end
    local entry = redis.call('HGET', WAITERS, head[1])
    if entry and tonumber(string.match(entry, '^(%d+) ')) > now_ms then
      return head[1], entry
    end
    forget_waiter(head[1])
  end
end

-- Takes the longest-waiting waiter whose entry has not expired off the queue (dropping expired
-- ones met on the way): its owner id and entry, or false when nobody waits.
local function pop_live_waiter(now_ms)
  while true do
    local head = redis.call('ZPOPMIN', QUEUE)
    if #head == 0 then
      return false
    end
    local entry = redis.call('HGET', WAITERS, head[1])
    redis.call('HDEL', WAITERS, head[1])
    if entry and tonumber(string.match(entry, '^(%d+) ')) > now_ms then
      return head[1], entry
    end
  end
end

-- The waiter a release may pass the lock (or a permit) to directly: `arg` is the release's
-- "<successor> <ahead>" (or ''): a queued owner of the releasing client. Returns that owner and
-- its entry if the entry is live and the owner is first in line or `ahead` is '1'; else nothing.
local function successor_to_pass(arg, now_ms)
  local successor, ahead = string.match(arg or '', '^(%S+) ([01])$')
  if not successor then
    return nil
  end
  local entry = redis.call('HGET', WAITERS, successor)
  if not entry or tonumber(string.match(entry, '^(%d+) ')) <= now_ms
      or (ahead ~= '1' and first_live_waiter(now_ms) ~= successor) then
    return nil
  end
  return successor, entry
end

-- Queues `owner` (or refreshes its entry) to live `ttl_ms` more; `rest` is its entry after the
-- expiry: "<lease ms> <claim ms> [<lane> ]<channel>". The queue keys outlive their last entry by at
-- most one entry lifetime, and never outlive the name's marker where it has one (its scripts keep
-- the marker at least an entry lifetime more: else claim_kind would take a queue of dead entries
-- for an exclusive lock's waiters).
local function enqueue(owner, now_ms, now_us, ttl_ms, rest)
  redis.call('ZADD', QUEUE, 'NX', now_us, owner) -- a waiter queued already keeps its place
  redis.call('HSET', WAITERS, owner, string.format('%d', now_ms + ttl_ms) .. ' ' .. rest)
  if redis.call('PTTL', QUEUE) < ttl_ms then
    redis.call('PEXPIRE', QUEUE, ttl_ms)
  end
  if redis.call('PTTL', WAITERS) < ttl_ms then
    redis.call('PEXPIRE', WAITERS, ttl_ms)
  end
end

-- Tells `waiter` on `channel` that it was granted the lock with `token` (and `serial`, if not the
-- token); `state` names its local state in the client.
local function notify(channel, token, waiter, state, serial)
  local head = digits(token)
  if serial and digits(serial) ~= head then
    head = digits(serial) .. ':' .. head
  end
  local message = head .. ' ' .. waiter .. ' ' .. state
  if channel == '!' then
    redis.call('SPUBLISH', KEYS[1] .. ':n', message)
  else
    redis.call('PUBLISH', channel, message)
  end
end

-- readwrite.lua: how a read-write lock is handed to its waiters, shared by its scripts. Not a
-- script of its own: the loader inlines it where a script says "-- @include readwrite.lua"
-- (after lockvalue.lua, fence.lua, queue.lua and holders.lua).
--
-- KEYS[1] is the name's marker "readwrite" (see holders.lua); READERS and WRITERS the sets of
-- owners holding it to read and to write (at most one writer), each with a hold key of its own.
-- Waiters of both lanes share one queue, served in arrival order; an entry names its lane.
-- Fencing tokens: every grant, read or write, is issued a new value of the fence (see fence.lua),
-- its serial (see queue.lua), larger than every earlier one of the name. A write hold's token is
-- its serial, which LAST_WRITE keeps. A read hold's token is the last write's (LAST_WRITE), so that
-- a resource can refuse a read older than a write it has seen; where LAST_WRITE is gone (Redis
-- lost it, or no write for the fence retention), its own serial, which is above every earlier
-- write's too. A read hold keeps its serial as its 'since' (the server time of the grant, unless
-- the clock is behind the fence).

local READERS, WRITERS, LAST_WRITE = KEYS[1] .. ':r', KEYS[1] .. ':w', KEYS[1] .. ':lw'

-- The set of a lane ('r' or 'w').
local function holders_of(lane)
  return lane == 'r' and READERS or WRITERS
end

-- The token a hold of `lane` gets, and the serial of its grant.
local function lane_token(lane, now_us, retention_ms)
  local serial = issue_token(now_us, retention_ms)
  if lane == 'w' then
    redis.call('SET', LAST_WRITE, digits(serial), 'PX', retention_ms)
    return serial, serial
  end
  local last = redis.call('GET', LAST_WRITE)
  if not last then
    return serial, serial
  end
  redis.call('PEXPIRE', LAST_WRITE, retention_ms)
  return tonumber(last), serial
end

-- Hands the lock on in arrival order while it can: a writer at the head of the queue when nobody
-- holds the lock; else every reader at the head, up to the next writer, while no writer holds it.
-- Each is told on its channel; a grant first lasts only the waiter's claim time (see
-- handoff.lua). Returns how many were handed.
local function grant_waiting(now_ms, now_us, retention_ms)
  local writers, readers = #live_holders(WRITERS), #live_holders(READERS)
  local handed = 0
  while writers == 0 do
    local waiter, entry = first_live_waiter(now_ms)
    if not waiter then
      break
    end
    local lease, claim, lane, channel = string.match(entry, '^%d+ (%d+) (%d+) ([rw]) (.+)$')
    if not lane then
      forget_waiter(waiter) -- not a read-write lock's waiter (see claim_kind in holders.lua): skipped
    elseif lane == 'w' and readers > 0 then
      break
    else
      forget_waiter(waiter)
      local token, serial = lane_token(lane, now_us, retention_ms)
      add_hold(holders_of(lane), waiter, token, lease, now_us, serial, math.min(tonumber(lease), tonumber(claim)))
      notify(channel, token, waiter, KEYS[1] .. '#' .. lane, serial)
      handed = handed + 1
      if lane == 'w' then
        writers = 1
      else
        readers = readers + 1
      end
    end
  end
  return handed
end

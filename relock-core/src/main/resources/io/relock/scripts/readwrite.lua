-- readwrite.lua: how a read-write lock is handed to its waiters, shared by its scripts. Not a
-- script of its own: the loader inlines it where a script says "-- @include readwrite.lua",
-- once, after what it requires (the line below; LuaScript assembles fragments in that order).
-- @requires fence.lua queue.lua holders.lua
-- KEYS[1] is the name's marker "readwrite" (see holders.lua); READERS and WRITERS the indexes of
-- owners holding it to read and to write (at most one writer), each with a hold key of its own.
-- Waiters of both lanes share one queue, served in arrival order; an entry names its lane.
-- Fencing tokens: every grant, read or write, is issued a new value of the fence (see fence.lua),
-- its serial (see queue.lua), larger than every earlier one of the name. A write hold's token is
-- its serial. A read hold's token is its read epoch's: a reader granted while no other reader
-- holds opens an epoch, whose token is that reader's serial; a reader granted while others hold
-- joins their epoch and carries the same token (its own serial tells its grants apart, see
-- queue.lua's notify). No writer is granted while a reader holds, so every write granted before an
-- epoch has a lower token than the epoch's, and every write granted after it a higher one. A
-- resource that refuses an operation whose token is lower than the highest it has accepted, reads
-- and writes alike, thus refuses a writer whose lease ran out once a reader granted after it has
-- read, and a reader whose lease ran out once a later writer has worked; the readers of one epoch
-- share a token and so never refuse one another. A writer's downgrade (it takes the read lock
-- while it holds the write lock) opens an epoch above its own write token. A read hold keeps its
-- serial as its 'since' (the server time of the grant, unless the clock is behind the fence).

local READERS, WRITERS = KEYS[1] .. ':readers', KEYS[1] .. ':writers'
NAME_SETS[1], NAME_SETS[2] = READERS, WRITERS

-- The holder index of a lane ('r' or 'w').
local function holders_of(lane)
  return lane == 'r' and READERS or WRITERS
end

-- The token of the read epoch that the live read holders share; nil if none holds. `first` is the
-- reader with the lowest score live_holders found (nil: no reader), which usually has it; if its
-- key is gone (deleted outside relock's scripts), the other readers are asked.
local function read_epoch(first)
  if not first then
    return nil
  end
  local _, token = hold_of(first)
  if token then
    return tonumber(token)
  end
  for _, reader in ipairs(redis.call('ZRANGE', READERS, 0, -1)) do
    _, token = hold_of(reader)
    if token then
      return tonumber(token)
    end
  end
  return nil
end

-- The token a hold of `lane` gets, and the serial of its grant; `epoch` is the token of the
-- readers holding now (nil if none), which a reader joins.
local function lane_token(lane, epoch, now_us, retention_ms)
  local serial = issue_token(now_us, retention_ms)
  if lane == 'r' and epoch then
    return epoch, serial
  end
  return serial, serial
end

-- Hands the lock on in arrival order while it can: a writer at the head of the queue when nobody
-- holds the lock; else every reader at the head, up to the next writer, while no writer holds it.
-- Each is told on its channel; a grant first lasts only the waiter's claim time (see
-- handoff.lua). Returns how many were handed.
local function grant_waiting(now_ms, now_us, retention_ms)
  local writers = live_holders(WRITERS, now_ms)
  local _, _, reader = live_holders(READERS, now_ms)
  local epoch = read_epoch(reader)
  local handed = 0
  while writers == 0 do
    local waiter, entry = first_live_waiter(now_ms)
    if not waiter then
      break
    end
    local lease, claim, lane, channel = string.match(entry, '^%d+ (%d+) (%d+) ([rw]) (.+)$')
    if not lane then
      forget_waiter(waiter) -- not a read-write lock's waiter (see claim_kind in holders.lua): skipped
    elseif lane == 'w' and epoch then -- an epoch: readers hold
      break
    else
      forget_waiter(waiter)
      local token, serial = lane_token(lane, epoch, now_us, retention_ms)
      add_hold(holders_of(lane), waiter, token, lease, now_us, serial, math.min(tonumber(lease), tonumber(claim)))
      notify(channel, token, waiter, KEYS[1] .. '#' .. lane, serial)
      handed = handed + 1
      if lane == 'w' then
        writers = 1
      else
        epoch = token
      end
    end
  end
  return handed
end

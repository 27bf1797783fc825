/*
 * readwrite.pml: the read-write lock's protocol (relock-core) as a Promela model for spin.
 *
 * Redis runs each script as one atomic step: readwrite_acquire.lua and readwrite_release.lua,
 * with readwrite.lua, holders.lua, queue.lua and fence.lua inlined as the loader does, and
 * renew.lua for one hold. Each client is the engine for one acquisition of one lane (a reader or
 * a writer) and its hold: the same engine as the exclusive lock's (shared_engine.pml). Steps are
 * named after the script and lines they stand for. See README.md for the bounds, the properties
 * and what is left out.
 *
 * Compile-time switches (spin -D...), besides those of shared_redis.pml (N, FAULTS, ...):
 *   LANE1, LANE2, LANE3   a client's lane, LW (write) or LR (read); 0 (default): either, chosen
 *                         when it starts
 *   BUG_HANDOVER_DEAD_ON_ARRIVAL
 *                         abcf149's hand-over half put back (the handed-over reader lease the
 *                         issue names): a grant handed over while the client waited, known only
 *                         after its claim could have run out, counts from the waiter's last call
 *                         (grantNoEarlierThan) instead of being confirmed by a renewal first
 *   BUG_RW_STALE_EPOCH    (not a project defect; a plausible one) grant_waiting stops at a writer
 *                         only if readers held when it began (the count taken before its loop),
 *                         not when its own loop has just granted readers
 *   BUG_HANDOVER_LEASE    (a plausible slip, as in relock.pml) grant_waiting writes a handed-over
 *                         hold's key for the full lease instead of the waiter's claim time
 *   BUG_ENTRY_UNCAPPED    (shared_engine.pml; as in relock.pml) the queue entry lifetime not capped
 *                         at the wait's deadline
 *   DRIFT_EDGES           (shared_redis.pml) Redis's clock only fast or slow at each key write
 */

#define LW 1       /* a writer */
#define LR 2       /* a reader */

#include "shared_redis.pml"

#ifndef LANE1
#define LANE1 0
#endif
#ifndef LANE2
#define LANE2 0
#endif
#ifndef LANE3
#define LANE3 0
#endif
#define LANE_OF(c) (c == 1 -> LANE1 : (c == 2 -> LANE2 : LANE3))

byte lane[NA];     /* the lane each client acquires (LockKind.READ / WRITE, ARGV[6]) */

/* ghosts */
byte maxwtok;      /* highest write token ever issued */
bool exclusion = 1;

HIDDEN byte t_nw, t_nr, t_epoch, p_rd;

inline kind_start(c) {
  if
  :: LANE_OF(c) != 0 -> lane[c] = LANE_OF(c)
  :: LANE_OF(c) == 0 -> lane[c] = LW
  :: LANE_OF(c) == 0 -> lane[c] = LR
  fi
}

/* ================================ readwrite.lua ================================ */

/* holders.lua live_holders (l.121-142) of WRITERS and READERS, and readwrite.lua read_epoch
 * (l.33-48): t_nw writers and t_nr readers whose hold key is there, t_epoch a live reader's
 * token (0: none) */
inline live_holders() {
  t_nw = 0; t_nr = 0; t_epoch = 0;
  t_i = 1;
  do
  :: t_i <= N ->
     if
     :: HOLDS(t_i) && lane[t_i] == LW -> t_nw++
     :: HOLDS(t_i) && lane[t_i] == LR -> t_nr++; t_epoch = htk[t_i]
     :: else
     fi;
     t_i++
  :: else -> break
  od
}

/* readwrite.lua lane_token (l.52-58): t_tok the grant's serial, t_v its token (a reader joins
 * the epoch of the readers holding, t_epoch); with the fencing the header (l.8-20) states */
inline lane_token(w) {
  issue_token();
  if
  :: lane[w] == LR && t_epoch != 0 -> t_v = t_epoch
  :: else -> t_v = t_tok
  fi;
  if
  :: lane[w] == LW -> maxwtok = t_v
  :: else ->
     /* a reader's token is above every write token issued before it ... */
     if
     :: t_v <= maxwtok -> fence_order = 0
     :: else
     fi;
     /* ... and readers holding at once share it */
     p_j = 1;
     do
     :: p_j <= N ->
        if
        :: p_j != w && HOLDS(p_j) && lane[p_j] == LR && htk[p_j] != t_v -> fence_order = 0
        :: else
        fi;
        p_j++
     :: else -> break
     od
  fi;
  assert(fence_order)
}

/* readwrite.lua grant_waiting (l.64-93): in arrival order, a writer at the head when nobody
 * holds, else every reader up to the next writer while no writer holds; each for its claim time
 * (min(lease, claim)), told on its channel */
inline grant_waiting() {
  live_holders();
  do
  :: t_nw == 0 ->
     first_live_waiter();
     if
     :: t_first == 0 -> break
#ifdef BUG_RW_STALE_EPOCH
     :: t_first != 0 && lane[t_first] == LW && t_nr != 0 -> break
     :: t_first != 0 && !(lane[t_first] == LW && t_nr != 0) ->
#else
     :: t_first != 0 && lane[t_first] == LW && t_epoch != 0 -> break   /* l.77-78 */
     :: t_first != 0 && !(lane[t_first] == LW && t_epoch != 0) ->
#endif
        forget_waiter(t_first);                                          /* l.80-83 */
        lane_token(t_first);
#ifdef BUG_HANDOVER_LEASE
        add_hold(t_first, t_v, t_tok, LEASE);   /* the full lease, not the claim time */
        hleg[t_first] = DRIFTED(CLAIM);         /* ghost: what a hand-over may last */
#else
        add_hold(t_first, t_v, t_tok, CLAIM);
#endif
        notify(t_first, t_tok, t_v);
        if                                                               /* l.85-89 */
        :: lane[t_first] == LW -> t_nw = 1
        :: else -> t_epoch = t_v
        fi
     fi
  :: else -> break
  od
}

/* whether the lock is free for c's lane (readwrite_acquire.lua l.84-86; no downgrade) */
#define FREE(c) ((lane[c] == LW && t_nw == 0 && t_nr == 0) || (lane[c] == LR && t_nw == 0))

/* readwrite_acquire.lua, modes 'wait', 'recheck', 'giveup', 'abandon' */
inline acquire(c, mode) {
  /* l.28 claim_kind: the marker (which only keeps kinds apart) is not modelled */
  /* l.43-65: the caller holds: 'abandon' drops it and hands on; else held(token, since) */
  if
  :: HOLDS(c) && mode == C_ABANDON -> drop_hold(c); grant_waiting(); reply(c, R_M1, 0, 0, 0); goto acq_done
  :: HOLDS(c) && mode != C_ABANDON -> reply(c, R_3, htk[c], 0, hsr[c]); goto acq_done
  :: else
  fi;
  /* l.70-75 */
  if
  :: mode == C_GIVEUP || mode == C_ABANDON ->
     forget_waiter(c); grant_waiting(); reply(c, R_M1, 0, 0, 0); goto acq_done
  :: else
  fi;
  /* l.76-78 */
  if
  :: mode == C_RECHECK ->
     queued(c, t_ok);
     if
     :: !t_ok -> t_v = ISSUED; reply(c, R_M3, 0, 0, t_v); goto acq_done
     :: else
     fi
  :: else
  fi;
  live_holders();   /* l.81-82 */
  if
  :: FREE(c) ->     /* l.87 */
     first_live_waiter();
     if
     :: t_first != 0 && t_first != c ->   /* l.89-100: those ahead go first */
        grant_waiting();
        if
        :: HOLDS(c) -> reply(c, R_3, htk[c], 0, hsr[c]); goto acq_done
        :: else
        fi;
        live_holders(); first_live_waiter()
     :: else
     fi;
     if
     :: FREE(c) && (t_first == 0 || t_first == c) ->   /* l.101-111: taken */
        forget_waiter(c);
        lane_token(c);
        add_hold(c, t_v, t_tok, LEASE);
        if
        :: lane[c] == LR -> grant_waiting()   /* the readers queued right behind */
        :: else
        fi;
        reply(c, R_1, htk[c], 0, hsr[c]); goto acq_done
     :: else
     fi
  :: else
  fi;
  /* l.114-119: queued, told when the first hold ends */
  soonest_end();
  enqueue(c, aent[c], aleg[c]);
  t_v = ISSUED;
  reply(c, R_0, 0, t_pttl, t_v);
acq_done:
  skip
}

/* readwrite_release.lua, ARGV[2] '1' (every hold at once) */
inline release(c) {
  if
  :: !HOLDS(c) -> grant_waiting(); reply(c, R_M1, 0, 0, 0)                 /* l.19-28 */
  :: HOLDS(c) -> drop_hold(c); grant_waiting(); reply(c, R_2, 0, 0, 0)     /* l.34-37 */
  fi
}

/* ================================ properties ================================ */

#define OVERLAP(i, j) (VALID(i) && VALID(j) && (lane[i] == LW || lane[j] == LW))

/* exclusion: no client counts a valid write lease while another counts any valid lease (unless
 * Redis restarted without data during one of their holds); and in Redis a live write hold is
 * never beside another live hold */
inline check_kind() {
  live_holders();
  if
  :: t_nw > 1 || (t_nw == 1 && t_nr > 0) -> exclusion = 0
  :: else
  fi;
  if
  :: OVERLAP(1, 2) || (N >= 3 && (OVERLAP(1, 3) || OVERLAP(2, 3))) -> exclusion = 0
  :: else
  fi;
  assert(exclusion)
}

/* for no_lost_wakeup: whether grant_waiting, run now, would serve w (a waiter not queued: whether
 * a call now would take the lock: its lane free and nobody queued) */
inline servable(w, res) {
  res = 0;
  live_holders();
  queued(w, t_ok);
  if
  :: HOLDS(w) -> skip   /* served: it learns of it by its notification */
  :: !HOLDS(w) && t_ok && t_nw == 0 ->
     p_rd = (t_nr > 0);
     p_j = 0;
     do
     :: p_j < qn && qexp[q[p_j]] <= now -> p_j++   /* an expired entry: skipped */
     :: p_j < qn && qexp[q[p_j]] > now && lane[q[p_j]] == LW ->
        if
        :: !p_rd && q[p_j] == w -> res = 1
        :: else
        fi;
        break
     :: p_j < qn && qexp[q[p_j]] > now && lane[q[p_j]] == LR ->
        if
        :: q[p_j] == w -> res = 1
        :: else
        fi;
        p_rd = 1; p_j++
     :: p_j >= qn -> break
     od
  :: !HOLDS(w) && t_ok && t_nw != 0 -> skip
  :: !HOLDS(w) && !t_ok ->
     any_live_entry(p_k);
     res = (FREE(w) && !p_k)
  fi
}

#include "shared_engine.pml"

/*
 * semaphore.pml: the semaphore's protocol (relock-core) as a Promela model for spin.
 *
 * Redis runs each script as one atomic step: semaphore_acquire.lua and semaphore_release.lua,
 * with semaphore.lua, holders.lua, queue.lua and fence.lua inlined as the loader does, and
 * renew.lua for one hold. Each client is the engine for one acquisition of one permit and its
 * hold: the same engine as the exclusive lock's (shared_engine.pml). Steps are named after the
 * script and lines they stand for. See README.md for the bounds, the properties and what is left
 * out.
 *
 * Compile-time switches (spin -D...), besides those of shared_redis.pml (N, FAULTS, ...):
 *   PERMITS=p                 the permits every client declares the semaphore with
 *   BUG_HANDOVER_DEAD_ON_ARRIVAL  abcf149's hand-over half put back (see readwrite.pml), for a permit
 *   BUG_SEM_UNCOUNTED         (not a project defect; a plausible one) grant_permits hands on while
 *                             the holders counted before its loop leave a permit free, not
 *                             counting the permits it has just handed
 *   BUG_SEM_WITHDRAW_PERMITS  (not a project defect; a plausible one) a withdrawal ('giveup',
 *                             'abandon') takes its permits from ARGV[6], which the client sends
 *                             as '0' (LockKind.Semaphore.acquireArgs), instead of the marker: a
 *                             permit it frees is not handed on
 *   BUG_ENTRY_UNCAPPED        (shared_engine.pml; as in relock.pml) the queue entry lifetime not
 *                             capped at the wait's deadline
 *   DRIFT_EDGES               (shared_redis.pml) Redis's clock only fast or slow at each key write
 */

#ifndef PERMITS
#define PERMITS 1
#endif

#include "shared_redis.pml"

/* ghosts */
bool permits = 1;

HIDDEN byte t_nl, t_p;

inline kind_start(c) {
  skip
}

/* ================================ semaphore.lua ================================ */

/* holders.lua live_holders (l.121-142) of HOLDERS: t_nl, how many hold keys are there */
inline live_count() {
  t_nl = 0;
  t_i = 1;
  do
  :: t_i <= N ->
     if
     :: HOLDS(t_i) -> t_nl++
     :: else
     fi;
     t_i++
  :: else -> break
  od
}

/* semaphore.lua declared_permits (l.13-15): from the marker; 0 if there is none */
inline declared_permits() {
  t_p = (mk -> PERMITS : 0)
}

/* semaphore.lua grant_permits (l.20-35): the permits `live` holders leave free go to the waiters
 * at the head, in order, each for its claim time, told on its channel */
inline grant_permits(perm, live) {
  t_h = 0;
  do
#ifdef BUG_SEM_UNCOUNTED
  :: live < perm ->
#else
  :: live + t_h < perm ->
#endif
     first_live_waiter();
     if
     :: t_first == 0 -> break
     :: t_first != 0 ->
        forget_waiter(t_first);
        issue_token();
        add_hold(t_first, t_tok, t_tok, CLAIM);
        notify(t_first, t_tok, t_tok);
        t_h++
     fi
  :: else -> break
  od
}

/* semaphore_acquire.lua, modes 'wait', 'recheck', 'giveup', 'abandon'. Its first part (l.22-59)
 * answers the common cases before the general code is set up; in each case it takes it gives the
 * general code's answer and writes the same keys (it leaves holders whose holds ended in the set,
 * which the model's counts never include), so the general code below stands for both. */
inline acquire(c, mode) {
  /* l.64-68: a withdrawal's ARGV[6] is '0': its permits are the marker's; else claim_kind */
  if
  :: mode == C_GIVEUP || mode == C_ABANDON ->
#ifdef BUG_SEM_WITHDRAW_PERMITS
     t_p = 0
#else
     declared_permits()
#endif
  :: else -> mk = 1; t_p = PERMITS
  fi;
  /* l.75-87: the caller holds a permit: 'abandon' drops it and hands on; else {3, token, 1} */
  if
  :: HOLDS(c) && mode == C_ABANDON ->
     drop_hold(c); live_count(); grant_permits(t_p, t_nl); reply(c, R_M1, 0, 0, 0); goto acq_done
  :: HOLDS(c) && mode != C_ABANDON -> reply(c, R_3, htk[c], 0, 0); goto acq_done
  :: else
  fi;
  /* l.92-97 */
  if
  :: mode == C_GIVEUP || mode == C_ABANDON ->
     forget_waiter(c); live_count(); grant_permits(t_p, t_nl); reply(c, R_M1, 0, 0, 0); goto acq_done
  :: else
  fi;
  /* l.98-100 */
  if
  :: mode == C_RECHECK ->
     queued(c, t_ok);
     if
     :: !t_ok -> t_v = ISSUED; reply(c, R_M3, 0, 0, t_v); goto acq_done
     :: else
     fi
  :: else
  fi;
  live_count();   /* l.104 */
  if
  :: t_nl < t_p ->   /* l.105 */
     first_live_waiter();
     if
     :: t_first != 0 && t_first != c ->   /* l.106-117: those ahead get the free permits first */
        grant_permits(t_p, t_nl);
        if
        :: HOLDS(c) -> reply(c, R_3, htk[c], 0, 0); goto acq_done
        :: else
        fi;
        live_count(); first_live_waiter()
     :: else
     fi;
     if
     :: t_nl < t_p && (t_first == 0 || t_first == c) ->   /* l.118-125: taken */
        forget_waiter(c);
        issue_token();
        add_hold(c, t_tok, t_tok, LEASE);
        grant_permits(t_p, t_nl + 1);   /* permits left over go to the waiters behind */
        reply(c, R_1, htk[c], 0, 0); goto acq_done
     :: else
     fi
  :: else
  fi;
  /* l.128-133: queued, told when the first hold ends */
  soonest_end();
  enqueue(c, aent[c], aleg[c]);
  t_v = ISSUED;
  reply(c, R_0, 0, t_pttl, t_v);
acq_done:
  skip
}

/* semaphore_release.lua (its fast path, l.16-28, is the general path's outcome when no queue key
 * is left: grant_permits then finds nobody, and the marker needs no refresh) */
inline release(c) {
  declared_permits();   /* l.37 */
  if
  :: !HOLDS(c) -> live_count(); grant_permits(t_p, t_nl); reply(c, R_M1, 0, 0, 0)                 /* l.38-47 */
  :: HOLDS(c) -> drop_hold(c); live_count(); grant_permits(t_p, t_nl); reply(c, R_2, 0, 0, 0)     /* l.38, l.48-66 */
  fi
}

/* ================================ properties ================================ */

/* permits: no more clients count valid leases than there are permits (unless Redis restarted
 * without data during their holds); and Redis never has more live holds than permits */
inline check_kind() {
  live_count();
  if
  :: t_nl > PERMITS -> permits = 0
  :: else
  fi;
  p_k = 0;
  p_i = 1;
  do
  :: p_i <= N ->
     if
     :: VALID(p_i) -> p_k++
     :: else
     fi;
     p_i++
  :: else -> break
  od;
  if
  :: p_k > PERMITS -> permits = 0
  :: else
  fi;
  assert(permits)
}

/* for no_lost_wakeup: whether grant_permits, run now, would serve w (a waiter not queued: whether
 * a call now would take a permit: one free and nobody queued) */
inline servable(w, res) {
  res = 0;
  live_count();
  queued(w, t_ok);
  if
  :: HOLDS(w) -> skip   /* served: it learns of it by its notification */
  :: !HOLDS(w) && t_ok ->
     p_k = t_nl;
     p_j = 0;
     do
     :: p_j < qn && p_k < PERMITS ->
        if
        :: qexp[q[p_j]] > now ->
           if
           :: q[p_j] == w -> res = 1
           :: else
           fi;
           p_k++
        :: else   /* an expired entry: skipped */
        fi;
        p_j++
     :: else -> break
     od
  :: !HOLDS(w) && !t_ok ->
     any_live_entry(p_k);
     res = (t_nl < PERMITS && !p_k)
  fi
}

#include "shared_engine.pml"

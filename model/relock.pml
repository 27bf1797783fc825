/*
 * relock.pml: the exclusive lock's protocol (relock-core) as a Promela model for spin.
 *
 * Redis runs each script as one atomic step (acquire.lua, release.lua, renew.lua, with
 * fence.lua, queue.lua, handoff.lua and lockvalue.lua inlined, as the loader does); each client is
 * the engine's state machine for one acquisition and its hold (Acquisition, Release, HeldLease,
 * WatchdogRenewer, LeaseKeeper.confirmHandoff). Steps are named after the script or class and
 * line they stand for. See README.md for the bounds, the properties and what is left out.
 *
 * Time is discrete: one tick is one recheck interval / 2. It advances only when nothing else can
 * happen (spin's timeout), so every event due at a tick happens, in every order, before the next.
 * `now` is the clients' clock; Redis's clock runs up to the drift allowance faster or slower over
 * each key's lifetime (pick_drift).
 *
 * Compile-time switches (spin -D...):
 *   N=2|3               clients (one acquisition each)
 *   FAULTS=k            faults per run: a lost or delayed request, reply or grant notification,
 *                       a client paused, a client crashed, a Redis restart without data
 *   BUG_LATE_GRANT      caf083b put back: a grant notification is accepted after a reply found
 *                       its grant ended (no endedGrantsUpTo)
 *   BUG_RELEASE_RETRY   4020261 put back: a release attempt that was never sent counts as
 *                       possibly run, so a retry that finds the lock gone reads as released
 *   BUG_DEAD_ON_ARRIVAL abcf149 put back: a grant known only after its claim could have run out
 *                       counts from the waiter's last call (a lease lost on arrival), instead of
 *                       being confirmed by a renewal first
 *   BUG_FENCE_NO_CLOCK  (not a project defect; a check that the fencing assertion bites) tokens
 *                       are the fence plus one, without the server clock
 *   BUG_HANDOVER_LEASE  (a plausible slip, issue 42 point 4) handoff.lua writes a handed-over
 *                       hold's key for the full lease instead of the waiter's claim time
 *   BUG_ABANDON_KEEPS   (a plausible slip, issue 42 point 4) acquire.lua's 'abandon' by the
 *                       holder withdraws it from the queue but keeps the lock it had taken
 *   BUG_NO_HELD_CHECK   the second half of caf083b taken out alone: a reply that comes while the
 *                       client holds a grant it was notified of, and says that grant had ended
 *                       before the call ran, is ignored (no loss, no orphan withdrawal)
 *   BUG_ISSUED_SAME_US  acquire.lua's 'issued' as max(fence, server time), which a grant issued
 *                       later in the same server microsecond equals (the defect no_false_end
 *                       found; fixed as max(fence, server time - 1))
 *   BUG_ENTRY_UNCAPPED  (a plausible slip, issue 42 point 5) Acquisition.entryLifetimeMillis not
 *                       capped at the wait's deadline: a queue entry always lives 3 recheck
 *                       intervals
 *   NO_FREE_WITHIN      leaves the free_within assertion out (to show that the other properties
 *                       miss the last two defects)
 *   NO_FALSE_END_CHECK  leaves the no_false_end assertion out (BUG_FENCE_NO_CLOCK violates it
 *                       too; the run that shows fence_order bites turns it off)
 *   DRIFT_EDGES         a smaller search: each key write takes Redis's clock at one end of the
 *                       drift allowance or the other (fast or slow), never on time
 *   BUG_NO_WAIT_SENT_AGAIN  (a plausible slip, issue 42 point 1) Acquisition.granted takes a grant
 *                       at once while a 'wait' sent again is on its way (no waitSentAgain, so no
 *                       askAfterGrant / confirmGrant)
 *   BUG_ORPHAN_WHILE_RELEASING  (a plausible slip, issue 42 point 2) LockState.knowsGrant looks
 *                       at the holds only, not at the releases under way: a late notification of
 *                       the grant being released sends an orphan withdrawal beside the release
 *   STALE=0             no call times out while its request still runs later (issue 42 point 1)
 *   BUG_CLOSE_PAST_DEADLINE  (what point 1 found, put back) a lease closed past its local
 *                       deadline is not marked lost first (LeaseChanges.startClose), and a renewal
 *                       answered past it revives it (HeldLease.extendTo), before the fix: either
 *                       may find a key a late call of its own acquisition wrote again after the
 *                       hold ended, and take it for the hold
 *   STRICT_LOSS         reported_loss without its second exception: a hold taken again by a late
 *                       call of its own owner before the release ran (what point 1 found)
 */

#ifndef N
#define N 3
#endif
#ifndef FAULTS
#define FAULTS 2
#endif

/* which faults may happen (all by default) */
#ifndef NET
#define NET 1      /* requests, replies, notifications lost or delayed */
#endif
#ifndef PAUSE
#define PAUSE 1    /* a client paused before an event */
#endif
#ifndef CRASH
#define CRASH 1    /* a client crashed before an event */
#endif
#ifndef RESTART
#define RESTART 1  /* Redis restarted without its data */
#endif
#ifndef STALE
#define STALE 1    /* a call failed at its command timeout whose request Redis runs later */
#endif

#define LEASE 6    /* lease (ticks): relock's default 30 s lease is 3 watchdog ticks */
#define RI    2    /* recheck interval */
#define CLAIM 4    /* LeaseKeeper.claimMillis: 2 recheck intervals */
#define MARGIN 1   /* LeaseKeeper.claimMarginNanos: a third of the claim, in whole ticks */
#define ENTRY 6    /* Acquisition.entryLifetimeMillis: 3 recheck intervals, capped at the wait's end */
#define DRIFT 1    /* RelockSettings.driftFor: Redis's clock may run this much slower or faster than
                    * a client's over any key's lifetime: a key may expire this much early or late */
#define WD    2    /* watchdog tick: a third of the lease */
#define CT    1    /* command timeout: a lost request or reply fails this long after sending */
#define WAIT  8    /* each acquisition's wait (tryLock(WAIT)) */
#define HL    3    /* a caller holds the lock 0..HL ticks, then closes it */
#ifndef SMAX
#define SMAX  2    /* clients 2..N start at tick 0..SMAX (client 1 at 0) */
#endif
#ifndef NCANCEL
#define NCANCEL N  /* clients 1..NCANCEL may have their caller give up early */
#endif
#define DMAX  6    /* a delayed message arrives 1..DMAX ticks late */
#define PMAX  5    /* a paused client resumes 1..PMAX ticks later */
#define K     8    /* server microseconds per tick: TIME in a script is now*K+1 */
#ifndef TMAX
#define TMAX  34   /* the horizon: every caller is done by then, and every lease over */
#endif
#ifdef NOHIDE
#define HIDDEN   /* breadth-first search cannot have hidden variables */
#else
#define HIDDEN hidden
#endif
#define NONE  255
#define NA    4    /* per-client arrays, index 1..N */

#define NOWUS (now * K + 1)

/* client phases (Acquisition.Phase, then the hold and its Release) */
#define IDLE   0
#define ACTIVE 1
#define HELD   2
#define WDRAW  3   /* WITHDRAWING */
#define REL    4   /* close(): a Release under way */
#define DONE   5   /* caller answered and nothing left to do (SETTLED, or released) */
#define DEAD   6   /* crashed */

/* calls */
#define C_WAIT    1
#define C_RECHECK 2
#define C_GIVEUP  3
#define C_ABANDON 4
#define C_CONFIRM 5   /* renew.lua on the caller's own hold (Acquisition.confirm) */
#define C_REL1    6   /* release.lua ARGV[2]='1' (GETDEL) */
#define C_REL2    7   /* release.lua ARGV[2]='2' (careful: read first) */
#define C_RENEW   8   /* renew.lua (watchdog, LeaseKeeper.confirmHandoff) */

/* a call slot's state */
#define S_FREE    0
#define S_OUT     1   /* request on its way to Redis */
#define S_REPLY   2   /* reply on its way back */
#define S_ERR     3   /* failed; may have run (timeout, connection reset) */
#define S_NOTSENT 4   /* failed; never sent (CommandNotSentException) */
#define S_RETRY   5   /* (the orphan withdrawal's slot) failed; sent again at its due tick */

/* which slot a script's reply goes to (t_slot) */
#define SL_ACQ    0   /* the acquisition's call (acquire.lua, Acquisition.confirm's renew.lua) */
#define SL_REL    1   /* the Release's call (release.lua) */
#define SL_ORPH   2   /* LockCalls.withdrawOrphan (acquire.lua 'abandon') */
#define SL_STALE  3   /* a request whose call already failed at the client: the reply is dropped */
#define SL_RENEW  4   /* the watchdog's renewal (renew.lua) */

/* reply codes, +3 */
#define R_M3 0
#define R_M1 2
#define R_0  3
#define R_1  4
#define R_2  5
#define R_3  6

/* timer actions */
#define T_RECHECK  1
#define T_RETRY    2
#define T_CLEANUP  3
#define T_RELRETRY 4

byte now;
byte faults;
bool rdown;      /* Redis restarting: down until the next tick */
bool rstart;     /* a restart is due within this tick */

/* ---- Redis ---- */
byte lo;         /* lock KEYS[1]: owner (0: no key) */
byte ltok;       /* its token */
byte lexp;       /* its expiry (tick) */
bool lw;         /* its waiters field 'w' */
bool fex;        /* fence key exists */
byte fv;         /* fence: last token issued */
bool fw;         /* fence's waiters mark ' w' */
byte q[N];       /* queue :q, oldest first */
byte qn;
byte qexp[NA];  /* :qi entry expiry per owner */
byte qkexp;      /* expiry of the queue keys (enqueue's PEXPIRE) */
byte qleg[NA];   /* ghost: the latest tick each entry may legitimately live (see free_within) */

/* ---- clients (index 1..N) ---- */
byte ph[NA];
bool infl[NA];      /* Acquisition.inFlight */
bool inredis[NA];   /* Acquisition.inRedis */
byte gnet[NA];      /* grantNoEarlierThan */
byte ended[NA];     /* endedGrantsUpTo */
byte dl[NA];        /* the wait's deadline */
byte st[NA];        /* start tick */
byte cancelAt[NA];  /* the caller gives up (interrupt/cancel) at this tick, or NONE */
byte tmr[NA];       /* the Retry timer: due tick or NONE */
byte tact[NA];      /* and what it does */
byte rmode[NA];     /* the call a T_RETRY sends */
byte htok[NA];      /* HeldLease.token */
byte vu[NA];        /* HeldLease.validUntilNanos */
bool lost[NA];      /* HeldLease.lostReason != null (onLost ran) */
byte renAt[NA];     /* next renewal (watchdog / confirmHandoff) */
byte relAt[NA];     /* the caller closes the hold at this tick */
bool unk[NA];       /* Release.outcomeUnknown */
byte fsent[NA];     /* Release.firstSent */
byte cdl[NA];       /* Release.callerDeadline */
byte gua[NA];       /* Release.giveUpAt */
bool told[NA];      /* Release: the caller has its answer */
bool conn[NA];      /* connection up */
byte pz[NA];        /* paused until */
bool wsa[NA];       /* Acquisition.waitSentAgain */
bool cg[NA];        /* Acquisition.confirmGrant */
/* the acquisition's call slot (acquire.lua / Acquisition.confirm) */
byte ak[NA]; byte as[NA]; byte asent[NA]; byte adue[NA];
byte acode[NA]; byte atok[NA]; byte apttl[NA]; byte aiss[NA];
byte aent[NA];   /* the call's ARGV[5]: its queue entry's lifetime (Acquisition.entryLifetimeMillis) */
byte aleg[NA];   /* ghost: that lifetime as the wait's deadline allows it (differs only with a defect) */
/* the Release's call slot (release.lua; LockState.finish sends it at once, beside the others) */
byte lk[NA]; byte ls[NA]; byte lsent[NA]; byte ldue[NA]; byte lcode[NA];
/* the orphan withdrawal's slot (LockCalls.withdrawOrphan: a call of its own, retried) */
byte os[NA]; byte odue[NA];
/* a request whose call failed at the command timeout (ScriptRunner's orTimeout) and that Redis
 * runs at tick zdue, its reply dropped: its kind (0: none), one per client */
byte zk[NA]; byte zdue[NA];
/* the watchdog's slot (renew.lua) */
byte rs[NA]; byte rsent[NA]; byte rdue[NA]; bool rheld[NA];
/* grant notifications on the client's channel: token (0: none) and arrival tick */
byte n1[NA]; byte nd1[NA]; byte n2[NA]; byte nd2[NA];

/* ---- ghosts (what the properties look at; no client or script reads them) ---- */
byte maxtok;         /* highest token ever issued, across restarts */
bool hend[NA];      /* this owner's hold ended in Redis other than by its own call (before its
                     * release ran: what a key of its own written again after that does is not
                     * the hold the release reports on) */
bool amb[NA];       /* a release attempt of it failed with its outcome unknown */
bool rsd[NA];       /* Redis restarted without data during this client's acquisition or hold */
byte kleg;          /* the latest tick the lock key may legitimately last (see free_within) */
bool faulted[NA];   /* a fault hit this client's messages or it was paused */
bool relran[NA];    /* this client's release has run in Redis (see free_within) */
bool rtk[NA];       /* its hold ended in Redis, then a late call of its own took the lock again
                     * (the same owner; see reported_loss) */

/* property flags, asserted by name */
bool exclusion = 1;
bool fence_order = 1;
bool no_lost_wakeup = 1;
bool valid_on_arrival = 1;
bool reported_loss = 1;
bool free_within = 1;
bool no_false_end = 1;
bool no_false_loss = 1;

/* temporaries of a script run or an event (not part of the state) */
HIDDEN byte t_c, t_i, t_j, t_k, t_v, t_tok, t_last, t_first, t_holder, t_pttl, t_d;
HIDDEN byte t_e;   /* the drift of the key written now: 0, DRIFT (on time) or 2*DRIFT, see pick_drift */
HIDDEN byte t_ok, t_w, t_tried, t_marked, t_waiters, t_fenced, t_hastok, t_more, t_swapped;
HIDDEN byte t_slot;  /* where the script being run replies (SL_...) */
HIDDEN byte t_zk;    /* the kind of the stale request being run */
HIDDEN byte t_was;   /* the caller held the lock before the script ran */
HIDDEN byte t_rc, t_rt, t_rp, t_ri;   /* the script's reply: code, token, pttl, issued */
HIDDEN byte t_cov;   /* t_cov = N begins each line marked "cover: NAME" (N one per mark), so that
                      * spin's unreached-code report tells whether that branch ran
                      * (model/check --coverage) */

/* ================================ properties ================================ */

/* exclusion: a client that counts its lease valid (HeldLease.isValid) is the holder in Redis,
 * unless Redis restarted without its data meanwhile (the documented hole fencing covers) */
inline check_exclusion() {
  t_i = 1;
  do
  :: t_i <= N ->
     if
     :: ph[t_i] == HELD && !lost[t_i] && now < vu[t_i] && !rsd[t_i] && lo != t_i -> exclusion = 0
     :: else
     fi;
     t_i++
  :: else -> break
  od;
  assert(exclusion)
}

/* fencing: every token written to the fence is above every token issued before it, across
 * restarts (max(fence + 1, server time)); a resource refusing lower tokens then never accepts a
 * stale holder's operation after a later holder's */
inline issued_token(t) {
  if
  :: t <= maxtok -> fence_order = 0
  :: else -> maxtok = t
  fi;
  assert(fence_order)
}

/* no false end: a grant the client counts as ended (a notification at or below endedGrantsUpTo,
 * ignored as late; a hold a reply's 'issued' says had ended before the call ran) is not the
 * caller's live hold in Redis. Else the client ignores a lock Redis holds for it, or reports a
 * loss that did not happen and gives up a lock it holds */
inline check_ended(c, tok) {
#ifndef NO_FALSE_END_CHECK
  if
  :: lo == c && ltok == tok -> no_false_end = 0
  :: else
  fi;
  assert(no_false_end)
#else
  skip
#endif
}

/* no lost wake-up: when time moves on with the lock free, no waiter that no fault touched, whose
 * wait has not run out and that has nothing in flight, is left to its recheck interval: its
 * next recheck is due within the drift allowance (when the lease it was told of ends) */
inline check_wakeup() {
  t_i = 1;
  do
  :: t_i <= N ->
     if
     :: lo == 0 && ph[t_i] == ACTIVE && !infl[t_i] && conn[t_i] && !faulted[t_i] && !rsd[t_i] &&
        now < dl[t_i] && now >= pz[t_i] && (tmr[t_i] == NONE || tmr[t_i] > now + DRIFT) -> no_lost_wakeup = 0
     :: else
     fi;
     t_i++
  :: else -> break
  od;
  assert(no_lost_wakeup)
}

/* a caller has stopped once it released (or is releasing), gave up (or is withdrawing), or
 * crashed; a phase never goes back below WDRAW */
#define ALL_STOPPED ((ph[1] >= WDRAW) && (N < 2 || ph[2] >= WDRAW) && (N < 3 || ph[N] >= WDRAW))
#define LOCK_FREE (lo == 0 && qn == 0)

/* free within: once every caller has stopped, the lock key is gone by the end of the last hold
 * it may legitimately stand for (kleg, a ghost written beside each write of the key): a lease from
 * when Redis ran a call of its owner's own (an acquisition, a renewal or confirmation: a crashed
 * holder's lock lasts that long), a claim time from a hand-over (a waiter that died or gave up
 * while queued holds it no longer), a lease from release.lua's put-back of another owner's hold
 * (l.76-85, which says so), and nothing after its owner's release or 'abandon' ran; each measured
 * by Redis's clock (the drift of that write). And a queue entry whose caller has stopped is dead by
 * the end its wait allows (qleg): the entry lifetime from when Redis ran the call, capped at what
 * was left of the wait when the call was sent (Acquisition.entryLifetimeMillis), by Redis's clock.
 * Checked when time moves on, after the keys due to expire have expired. */
inline check_free_within() {
#ifndef NO_FREE_WITHIN   /* (to show which defects only this property catches) */
  if
  :: ALL_STOPPED && lo != 0 && now >= kleg -> free_within = 0
  :: else
  fi;
  /* and a queue entry whose caller has stopped is dead by the end its wait allows (qleg) */
  t_i = 1;
  do
  :: t_i <= N ->
     if
     :: ph[t_i] >= WDRAW && qexp[t_i] > now && now >= qleg[t_i] -> free_within = 0
     :: else
     fi;
     t_i++
  :: else -> break
  od;
  assert(free_within)
#else
  skip
#endif
}

/* ================================ Redis scripts ================================ */

/* how late a delayed message arrives, and how long a pause lasts: short, middling or long */
inline pick_delay() {
  if
  :: t_d = 1
  :: t_d = DMAX / 2
  :: t_d = DMAX
  fi
}
inline pick_pause() {
  if
  :: t_d = 1
  :: t_d = PMAX / 2 + 1
  :: t_d = PMAX
  fi
}

/* Redis's clock against the clients' (issue 42, point 5): a key written now for px lives px of
 * Redis's time, which by the clients' clocks is px less or more the drift allowance (Redis's clock
 * faster or slower: RelockSettings.driftFor bounds the rate, not the direction). Chosen afresh at
 * each write, so the rate may change within a run, within the allowance; every key write (the
 * lock, a renewal, release.lua's put-back, a queue entry and the queue keys) goes through it.
 * t_e is 0 (fast), DRIFT (on time) or 2*DRIFT (slow); a key lives DRIFTED(px). */
inline pick_drift() {
  if
  :: t_e = 0
#ifndef DRIFT_EDGES   /* (a smaller search: Redis's clock only fast or slow, never on time) */
  :: t_e = DRIFT
#endif
  :: t_e = 2 * DRIFT
  fi
}
/* A key shorter than a recheck interval (a queue entry near its wait's deadline) takes no drift:
 * the allowance is 1% of its time plus 2 ms (RelockSettings.driftFor), a few ms for such a key,
 * which the model's tick (half a recheck interval) would round up to a whole tick, waking no waiter
 * that the code wakes within ms (the read-write lock's 3-client --deep run found that rounding) */
#define DRIFTED(px) (now + (px) + ((px) >= RI -> t_e - DRIFT : 0))

/* lockvalue.lua set_lock: KEYS[1] = owner, token, waiters; expires px from now */
inline set_lock(w, tok, px, waiters) {
  pick_drift();
  lo = w; ltok = tok; lexp = DRIFTED(px); lw = waiters;
  kleg = lexp;   /* ghost: a hold written for px may last px, by Redis's clock */
  if   /* ghost: a hold begins (not a key its owner's own late call writes again after it) */
  :: ph[w] <= ACTIVE -> hend[w] = 0
  :: else -> rtk[w] = rtk[w] || hend[w]
  fi
}

inline delete_lock() {
  lo = 0; ltok = 0; lexp = 0; lw = 0; kleg = 0
}

/* fence.lua write_fence */
inline write_fence(tok, waiters) {
  fex = 1; fv = tok; fw = waiters
}

/* fence.lua issue_marked_token (l.55-64): max(fence + 1, server time), marked */
inline issue_marked_token(waiters) {
  t_last = fv;
#ifdef BUG_FENCE_NO_CLOCK
  t_tok = t_last + 1;
#else
  if
  :: t_last >= NOWUS -> t_tok = t_last + 1
  :: else -> t_tok = NOWUS
  fi;
#endif
  write_fence(t_tok, waiters);
  issued_token(t_tok)
}

/* fence.lua settle_fence (l.36-51) after SET fence now GET returned (t_swapped, t_last, t_w) */
inline settle_fence() {
  if
  :: !t_swapped ->
#ifdef BUG_FENCE_NO_CLOCK
     t_tok = 1;
#else
     t_tok = NOWUS;
#endif
     t_waiters = 0; t_fenced = 0; write_fence(t_tok, 0)
  :: else ->
     t_waiters = t_w;
#ifdef BUG_FENCE_NO_CLOCK
     t_tok = t_last + 1;
#else
     if
     :: t_last >= NOWUS -> t_tok = t_last + 1
     :: else -> t_tok = NOWUS
     fi;
#endif
     write_fence(t_tok, t_waiters);
     t_fenced = 1
  fi;
  issued_token(t_tok)
}

/* queue.lua forget_waiter (l.20-23) */
inline forget_waiter(w) {
  t_j = 0;
  do
  :: t_j < qn && q[t_j] != w -> t_j++
  :: else -> break
  od;
  if
  :: t_j < qn ->
     do
     :: t_j + 1 < qn -> q[t_j] = q[t_j + 1]; t_j++
     :: else -> break
     od;
     qn--; q[qn] = 0
  :: else
  fi;
  qexp[w] = 0; qleg[w] = 0;
  if
  :: qn == 0 -> qkexp = 0
  :: else
  fi
}

inline queued(w, res) {
  res = 0;
  t_j = 0;
  do
  :: t_j < qn -> if :: q[t_j] == w -> res = 1 :: else fi; t_j++
  :: else -> break
  od
}

/* queue.lua first_live_waiter (l.27-39): expired entries met on the way are removed */
inline first_live_waiter() {
  t_first = 0;
  do
  :: qn == 0 -> break
  :: qn > 0 && qexp[q[0]] > now -> t_first = q[0]; break
  :: qn > 0 && qexp[q[0]] <= now -> t_k = q[0]; forget_waiter(t_k)
  od
}

/* queue.lua pop_live_waiter (l.43-55) */
inline pop_live_waiter() {
  t_first = 0;
  do
  :: qn == 0 -> break
  :: qn > 0 ->
     t_k = q[0]; t_ok = (qexp[t_k] > now);
     forget_waiter(t_k);
     if
     :: t_ok -> t_first = t_k; break
     :: else
     fi
  od
}

/* queue.lua enqueue (l.80-89): the entry lives ttl (ARGV[5]) from now by Redis's clock, and the
 * queue keys at least as long */
inline enqueue(w, ttl, legttl) {
  queued(w, t_ok);
  if
  :: !t_ok -> q[qn] = w; qn++
  :: else
  fi;
  pick_drift();
  qexp[w] = DRIFTED(ttl);
  qleg[w] = DRIFTED(legttl);   /* ghost: what the wait's deadline allows (see free_within) */
  if
  :: qkexp < qexp[w] -> qkexp = qexp[w]
  :: else
  fi
}

/* queue.lua notify (l.108-119): PUBLISH on the waiter's channel; delivered, delayed or lost */
inline notify(w, tok) {
  if
  :: ph[w] == DEAD || !conn[w] -> skip      /* nobody subscribed */
  :: else ->
     if
     :: t_d = 0
     ::  NET && faults < FAULTS -> faults++; faulted[w] = 1; t_d = NONE              /* lost */
     ::  NET && faults < FAULTS -> faults++; faulted[w] = 1; pick_delay() /* delayed */
     fi;
     if
     :: t_d == NONE -> skip
     :: n1[w] == 0 -> n1[w] = tok; nd1[w] = now + t_d
     :: n1[w] != 0 && n2[w] == 0 ->
        t_cov = 4; n2[w] = tok; nd2[w] = now + t_d   /* cover: second-notification */
     :: else -> assert(false)   /* model bound: two notifications in flight per client */
     fi
  fi
}

/* handoff.lua mark_waiters (l.12-21) */
inline mark_waiters(waiters) {
  if
  :: (fw != waiters) || !fex || waiters -> t_v = fv; write_fence(t_v, waiters)
  :: else
  fi;
  if
  :: lo != 0 && lw != waiters -> lw = waiters   /* keep_lock: expiry kept */
  :: else
  fi
}

/* handoff.lua hand_to (l.26-31) */
inline hand_to(w, px) {
  t_more = (qn > 0);
  issue_marked_token(t_more);
  set_lock(w, t_tok, px, t_more)
}

/* handoff.lua grant_next (l.47-60): the first live waiter gets the lock for its claim time */
inline grant_next() {
  pop_live_waiter();
  if
  :: t_first == 0 -> mark_waiters(0)
  :: else ->
#ifdef BUG_HANDOVER_LEASE
     hand_to(t_first, LEASE);
#else
     hand_to(t_first, CLAIM);
#endif
     kleg = DRIFTED(CLAIM);   /* ghost: a hand-over may last the waiter's claim time (l.40-45) */
     notify(t_first, t_tok)
  fi
}

/* a reply on its way back on a slot: delivered, delayed or lost */
inline deliver(c, sl, du, sn) {
  if
  :: sl = S_REPLY; du = now
  ::  NET && faults < FAULTS -> faults++; faulted[c] = 1; sl = S_ERR;
     du = (sn + CT > now -> sn + CT : now)
  ::  NET && faults < FAULTS -> faults++; faulted[c] = 1; sl = S_REPLY; pick_delay(); du = now + t_d
  fi
}

/* the script's reply (answer() sends it once the script is done) */
inline reply(c, code, tok, pttl, iss) {
  t_rc = code; t_rt = tok; t_rp = pttl; t_ri = iss
}

/* the reply, on the slot the request came on (t_slot); a stale request's is dropped (the call's
 * future has already failed) */
inline answer(c) {
  if
  :: t_slot == SL_ACQ ->
     acode[c] = t_rc; atok[c] = t_rt; apttl[c] = t_rp; aiss[c] = t_ri;
     deliver(c, as[c], adue[c], asent[c])
  :: t_slot == SL_REL -> lcode[c] = t_rc; deliver(c, ls[c], ldue[c], lsent[c])
  :: t_slot == SL_ORPH -> deliver(c, os[c], odue[c], now)
  :: t_slot == SL_RENEW -> rheld[c] = (t_rc == R_1); deliver(c, rs[c], rdue[c], rsent[c])
  :: t_slot == SL_STALE -> skip
  fi
}

/* acquire.lua's 'issued' (l.91-99): max(token or fence, server time - 1). A token issued later
 * is max(fence + 1, server time) and so above it; with BUG_ISSUED_SAME_US, the clock itself,
 * which a grant issued in the same microsecond also gets */
#ifdef BUG_ISSUED_SAME_US
#define ISSUED ((t_hastok -> t_tok : fv) > NOWUS -> (t_hastok -> t_tok : fv) : NOWUS)
#else
#define ISSUED ((t_hastok -> t_tok : fv) > NOWUS - 1 -> (t_hastok -> t_tok : fv) : NOWUS - 1)
#endif

/* acquire.lua, modes 'wait', 'recheck', 'giveup', 'abandon' */
inline acquire(c, mode) {
  t_tried = 0; t_hastok = 0; t_marked = 0;
  if   /* ghost: the holder's own 'abandon' ends what it may legitimately hold, now */
  :: mode == C_ABANDON && lo == c -> kleg = now
  :: else
  fi;
  if
  :: mode == C_WAIT ->
     /* l.48-50: SET fence <now> GET */
     t_swapped = fex; t_last = fv; t_w = fw;
     /* l.53-59: the fast path: fence below the clock, no waiters mark: SET NX */
     if
     :: t_swapped && !t_w && t_last > 0 && t_last < NOWUS ->
        t_tried = 1;
        write_fence(NOWUS, 0);
        if
        :: lo == 0 -> issued_token(NOWUS); set_lock(c, NOWUS, LEASE, 0); reply(c, R_1, NOWUS, 0, 0); goto acq_done
        :: else
        fi
     :: else
     fi;
     /* l.74: settle_fence */
     settle_fence();
     t_hastok = 1;
     /* l.76-81: fence lost while waiters are queued: its mark comes back */
     if
     :: !t_fenced && qn > 0 ->
        write_fence(t_tok, 1); t_waiters = 1   /* never taken here: see README.md, Coverage */
     :: else
     fi;
     t_marked = t_waiters;
     /* l.83-87 */
     if
     :: !t_waiters && !t_tried && lo == 0 -> set_lock(c, t_tok, LEASE, 0); reply(c, R_1, t_tok, 0, 0); goto acq_done
     :: else
     fi
  :: else
  fi;
  t_holder = lo;   /* l.98 */
  if
#ifdef BUG_ABANDON_KEEPS
  :: t_holder == c && mode != C_ABANDON ->   /* the holder's abandon taken for a waiter's */
#else
  :: t_holder == c ->
#endif
     if
     :: mode == C_ABANDON ->   /* l.114-123 */
        t_w = lw; delete_lock();
        if
        :: t_w -> grant_next()
        :: else
        fi;
        reply(c, R_M1, 0, 0, 0)
     :: else -> reply(c, R_3, ltok, 0, 0)   /* l.124-127 */
     fi;
     goto acq_done
  :: else
  fi;
  if
  :: mode == C_GIVEUP || mode == C_ABANDON ->   /* l.134-140 */
     forget_waiter(c);
     if
     :: qn == 0 -> mark_waiters(0)
     :: else
     fi;
     reply(c, R_M1, 0, 0, 0); goto acq_done
  :: else
  fi;
  if
  :: mode == C_RECHECK ->   /* l.142-147 */
     queued(c, t_ok);
     if
     :: !t_ok -> t_v = ISSUED; reply(c, R_M3, 0, 0, t_v); goto acq_done
     :: else
     fi
  :: else
  fi;
  if
  :: t_holder == 0 ->   /* l.153-169 */
     first_live_waiter();
     if
     :: t_first != 0 && t_first != c -> grant_next()
     :: t_first == c ->
        forget_waiter(c); hand_to(c, LEASE);   /* give_to */
        reply(c, R_1, t_tok, 0, 0); goto acq_done
     :: t_first == 0 ->
        if
        :: !t_hastok ->   /* issue_token: a call that brought no token (not 'wait') */
           t_swapped = fex; t_last = fv; t_w = fw; settle_fence(); t_hastok = 1   /* not taken by the CI set: README.md, Coverage */
        :: else
        fi;
        write_fence(t_tok, 0);
        set_lock(c, t_tok, LEASE, 0);
        reply(c, R_1, t_tok, 0, 0); goto acq_done
     fi
  :: else
  fi;
  /* l.173-189: held by another owner (or just handed to the first waiter): queue */
  t_pttl = lexp - now;
  enqueue(c, aent[c], aleg[c]);
  if
  :: t_holder == 0 -> t_hastok = 0; mark_waiters(1)
  :: else ->
     if
     :: !t_hastok || !t_marked -> t_v = (t_hastok -> t_tok : fv); write_fence(t_v, 1)
     :: else
     fi;
     lw = 1
  fi;
  t_v = ISSUED;
  reply(c, R_0, 0, t_pttl, t_v);
acq_done:
  skip
}

/* release.lua, ARGV[2] '1' or '2' (every hold at once; no successor named) */
inline release(c, mode) {
  relran[c] = 1;   /* ghost (free_within) */
  if
  :: lo == 0 -> reply(c, R_M1, 0, 0, 0)                  /* l.47-49 */
  :: lo != 0 && lo != c ->                               /* l.76-85 */
     if
     :: mode == C_REL1 ->   /* GETDEL took it: put back for a lease */
        t_cov = 5; pick_drift(); lexp = DRIFTED(LEASE); kleg = lexp   /* cover: release-put-back */
     :: else
     fi;
     reply(c, R_0, 0, 0, 0)
  :: lo == c && !lw -> delete_lock(); reply(c, R_2, 0, 0, 0)   /* l.33-36, l.82-87 */
  :: lo == c && lw -> delete_lock(); grant_next(); reply(c, R_2, 0, 0, 0)  /* l.88-103 */
  fi
}

/* renew.lua (l.43-49) for one hold: extended if the owner still holds it */
inline renew_one(c, res) {
  if
  :: lo == c -> pick_drift(); lexp = DRIFTED(LEASE); kleg = lexp; res = 1
  :: else -> res = 0
  fi
}

/* Redis restarts without its data: every key gone, connections reset */
inline restart() {
  if
  :: lo != 0 && !relran[lo] -> hend[lo] = 1
  :: else
  fi;
  delete_lock();
  fex = 0; fv = 0; fw = 0;
  t_i = 0;
  do
  :: t_i < N -> q[t_i] = 0; t_i++
  :: else -> break
  od;
  qn = 0; qkexp = 0;
  t_i = 1;
  do
  :: t_i <= N ->
     qexp[t_i] = 0; qleg[t_i] = 0;
     conn[t_i] = 0;
     if
     :: ph[t_i] == ACTIVE || ph[t_i] == HELD || ph[t_i] == WDRAW || ph[t_i] == REL -> rsd[t_i] = 1
     :: else
     fi;
     if
     :: as[t_i] == S_OUT || as[t_i] == S_REPLY -> as[t_i] = S_ERR; adue[t_i] = now
     :: else
     fi;
     if
     :: rs[t_i] == S_OUT || rs[t_i] == S_REPLY -> rs[t_i] = S_ERR; rdue[t_i] = now
     :: else
     fi;
     if
     :: ls[t_i] == S_OUT || ls[t_i] == S_REPLY -> ls[t_i] = S_ERR; ldue[t_i] = now
     :: else
     fi;
     if
     :: os[t_i] == S_OUT || os[t_i] == S_REPLY -> os[t_i] = S_ERR; odue[t_i] = now
     :: else
     fi;
     zk[t_i] = 0; zdue[t_i] = 0;   /* a request still waiting on a reset connection is gone */
     n1[t_i] = 0; nd1[t_i] = 0; n2[t_i] = 0; nd2[t_i] = 0;
     t_i++
  :: else -> break
  od;
  rdown = 1; rstart = 0
}

#define WORK(c) ((as[c] == S_OUT && adue[c] <= now) || (rs[c] == S_OUT && rdue[c] <= now) || \
                 (ls[c] == S_OUT && ldue[c] <= now) || (os[c] == S_OUT && odue[c] <= now) || \
                 (zk[c] != 0 && zdue[c] <= now))

/* a call that Redis runs (acquire.lua, release.lua, renew.lua as Acquisition.confirm) */
inline run_call(c, kind) {
  if
  :: kind == C_WAIT || kind == C_RECHECK || kind == C_GIVEUP || kind == C_ABANDON ->
     acquire(c, kind)
  :: kind == C_REL1 || kind == C_REL2 -> release(c, kind)
  :: kind == C_CONFIRM || kind == C_RENEW -> renew_one(c, t_ok); t_v = (t_ok -> R_1 : R_0); reply(c, t_v, 0, 0, 0)
  fi
}

active proctype Redis() {
end:
  do
  :: atomic { rstart -> restart(); check_exclusion() }
  :: atomic {
       !rdown && !rstart && (WORK(1) || WORK(2) || (N >= 3 && WORK(3))) ->
       /* any call whose request has arrived, in any order */
       if
       :: WORK(1) -> t_c = 1
       :: WORK(2) -> t_c = 2
       :: N >= 3 && WORK(3) -> t_c = 3
       fi;
       /* which of its requests (each script once in the model's text: see run_call) */
       if
       :: as[t_c] == S_OUT && adue[t_c] <= now -> t_slot = SL_ACQ; t_zk = ak[t_c]
       :: ls[t_c] == S_OUT && ldue[t_c] <= now -> t_slot = SL_REL; t_zk = lk[t_c]
       :: os[t_c] == S_OUT && odue[t_c] <= now -> t_slot = SL_ORPH; t_zk = C_ABANDON
       :: zk[t_c] != 0 && zdue[t_c] <= now ->
          /* a request whose call failed at the client's command timeout runs now (a lease from
           * now is what it may legitimately take: free_within's kleg as for any call) */
          t_cov = 9; t_slot = SL_STALE; t_zk = zk[t_c]; zk[t_c] = 0; zdue[t_c] = 0   /* cover: stale-request-runs */
       :: rs[t_c] == S_OUT && rdue[t_c] <= now -> t_slot = SL_RENEW; t_zk = C_RENEW
       fi;
       t_was = (lo == t_c);
       run_call(t_c, t_zk);
       if   /* ghost: a call the client still waits for, run after its own release, that takes
             * the lock again: held for nobody from now (see free_within) */
       :: t_slot == SL_ACQ && relran[t_c] && !t_was && lo == t_c -> kleg = now
       :: else
       fi;
       answer(t_c);
       check_exclusion()
     }
  od
}

/* ================================ clients ================================ */

/* send a request on a slot: never sent while disconnected; else it arrives, is lost, is delayed
 * (the client waits for it), or is delayed past the command timeout: the call fails then as one
 * that may have run (ScriptRunner's orTimeout) while its request stays on its way, and Redis runs
 * it 1, 3 or 6 ticks after it was sent, after the client's retry, release or withdrawal (on
 * Jedis, with several worker connections, even after a later call of the client); one such
 * request per client at a time */
inline post(c, kind, sl, du) {
  if
  :: !conn[c] -> sl = S_NOTSENT; du = now
  :: else ->
     if
     :: sl = S_OUT; du = now
     ::  NET && faults < FAULTS -> faults++; faulted[c] = 1; sl = S_ERR; du = now + CT
     ::  NET && faults < FAULTS -> faults++; faulted[c] = 1; sl = S_OUT; pick_delay(); du = now + t_d
     ::  STALE && NET && faults < FAULTS && zk[c] == 0 ->
        faults++; faulted[c] = 1; sl = S_ERR; du = now + CT;
        zk[c] = kind; pick_delay(); zdue[c] = now + t_d
     fi
  fi
}

/* the acquisition's calls (acquire.lua, Acquisition.confirm) */
inline send(c, kind) {
  ak[c] = kind; asent[c] = now;
  post(c, kind, as[c], adue[c])
}

/* LockCalls.withdrawOrphan: acquire.lua 'abandon', a call of its own */
inline send_orphan(c) {
  post(c, C_ABANDON, os[c], odue[c])
}

/* Acquisition.send (l.372-399), with Acquisition.entryLifetimeMillis (l.409-417) as ARGV[5]: three
 * recheck intervals, never past the wait's deadline (its "+ 1" ms is below a tick; at least 1) */
inline acq_send(c, kind) {
  infl[c] = 1;
  wsa[c] = (kind == C_WAIT && inredis[c]);   /* waitSentAgain */
  inredis[c] = 1;
  if
  :: gnet[c] == NONE -> gnet[c] = now
  :: else
  fi;
  if   /* only a 'wait' or 'recheck' queues */
  :: kind == C_WAIT || kind == C_RECHECK ->
     aleg[c] = (dl[c] > now -> (dl[c] - now < ENTRY -> dl[c] - now : ENTRY) : 1);
#ifdef BUG_ENTRY_UNCAPPED
     aent[c] = ENTRY   /* not capped at the wait's deadline */
#else
     aent[c] = aleg[c]
#endif
  :: else
  fi;
  send(c, kind)
}

/* Acquisition.succeed (l.674-697) and LeaseKeeper.acquired: the lease counts from `from` */
inline succeed(c, tok, from, handed) {
  if
  :: ph[c] == ACTIVE ->
     tmr[c] = NONE;
     ph[c] = HELD; htok[c] = tok; lost[c] = 0;
     vu[c] = from + (handed -> CLAIM : LEASE) - DRIFT;   /* grantEndsNanos */
     /* confirmHandoff a third into the claim; else the watchdog's next tick */
     renAt[c] = (handed -> from + 1 : now + WD);
     if
     :: renAt[c] < now -> renAt[c] = now
     :: else
     fi;
     if   /* the caller's critical section: short, or long enough for renewals */
     :: relAt[c] = now
     :: relAt[c] = now + HL
     fi;
     if
     :: vu[c] <= now -> valid_on_arrival = 0
     :: else
     fi;
     assert(valid_on_arrival)
  :: else
  fi
}

/* Acquisition.cleanUp (l.821-839) */
inline cleanup(c, err) {
  if
  :: !err && !inredis[c] -> ph[c] = DONE; tmr[c] = NONE    /* settle */
  :: err -> tmr[c] = now + 1; tact[c] = T_CLEANUP
  :: else -> acq_send(c, C_ABANDON)
  fi
}

/* Acquisition.fail (l.794-815): the caller gets its failure; Redis is cleaned up */
inline fail(c) {
  if
  :: ph[c] == ACTIVE ->
     tmr[c] = NONE; ph[c] = WDRAW;
     if
     :: !infl[c] -> cleanup(c, 0)
     :: else
     fi
  :: else
  fi
}

/* Acquisition.arrivedTooLate (l.531-547); sets t_ok when the grant must not count yet */
inline arrived_too_late(c, from, handed) {
#ifdef BUG_DEAD_ON_ARRIVAL
  t_ok = 0
#else
  if
  :: from + (handed -> CLAIM : LEASE) - DRIFT > now + (handed -> MARGIN : 0) -> t_ok = 0
  :: else ->
     t_ok = 1;
     if
     :: now >= dl[c] ->
        t_cov = 1; fail(c)   /* cover: too-late-grant-given-up */
     :: else ->
        t_cov = 2; acq_send(c, C_CONFIRM)   /* confirm (l.554-559); cover: too-late-grant-confirmed */
     fi
  fi
#endif
}

/* Acquisition.recheck (l.640-645) */
inline recheck(c) {
  if
  :: ph[c] == ACTIVE && !infl[c] -> t_v = (now >= dl[c] -> C_GIVEUP : C_RECHECK); acq_send(c, t_v)
  :: else
  fi
}

/* Acquisition.busy (l.609-638) */
inline busy(c) {
  if
  :: asent[c] > gnet[c] -> gnet[c] = asent[c]
  :: else
  fi;
  if
  :: cg[c] ->   /* confirmGrant: a grant arrived while this call was in flight: ask now */
     t_cov = 10; cg[c] = 0; recheck(c)   /* cover: confirm-grant */
  :: else ->
     t_d = (apttl[c] < RI -> apttl[c] : RI);
     if
     :: dl[c] - now < t_d -> t_d = dl[c] - now
     :: else
     fi;
     tmr[c] = now + t_d; tact[c] = T_RECHECK
  fi
}

/* Acquisition.attemptFailed (l.648-666): Retry's first backoff (25 ms) is well within a tick, so
 * a call that failed after it may have run (a timeout) is sent again in the same tick; one never
 * sent is sent again at the next tick, when the connection is back */
inline attempt_failed(c, kind, mayrun) {
  if
  :: now >= dl[c] -> fail(c)
  :: else ->
     tmr[c] = (mayrun -> now : now + 1); tact[c] = T_RETRY;
     rmode[c] = (kind == C_RECHECK || kind == C_CONFIRM -> C_WAIT : kind)
  fi
}

/* Acquisition.granted (l.724-748): a grant notification */
#if defined(BUG_NO_WAIT_SENT_AGAIN)
#define ASK_AFTER(c, tok) false
#elif defined(BUG_LATE_GRANT)
#define ASK_AFTER(c, tok) (wsa[c])
#else
#define ASK_AFTER(c, tok) (wsa[c] && tok > ended[c])
#endif
inline granted(c, tok) {
  if
  :: ph[c] == DONE && os[c] == S_FREE ->
     t_cov = 6; send_orphan(c)   /* LockState.granted: an orphan, withdrawn; cover: orphan-grant-withdrawn */
  :: ph[c] == DONE && os[c] != S_FREE -> skip   /* model bound: one orphan withdrawal at a time */
#ifdef BUG_ORPHAN_WHILE_RELEASING
  :: ph[c] == REL && os[c] == S_FREE -> send_orphan(c)   /* knowsGrant misses the release under way */
#else
  :: ph[c] == REL ->   /* LockState.knowsGrant: the grant being released (Release.all, its serial) */
     t_cov = 11   /* cover: grant-while-releasing-ignored */
#endif
  :: ph[c] == ACTIVE && ASK_AFTER(c, tok) ->
     /* waitSentAgain (l.733-736): askAfterGrant (l.781-790); the wait is in flight, so
      * confirmGrant: its reply answers for the grant (held, or busy() asks again) */
     t_cov = 12; cg[c] = 1   /* cover: wait-sent-again */
  :: ph[c] == ACTIVE && !ASK_AFTER(c, tok) ->
#ifdef BUG_LATE_GRANT
     if
     :: false -> skip
#else
     if
     :: tok <= ended[c] ->   /* a late notification of a grant that has ended */
        t_cov = 3;   /* cover: late-notification-ignored */
        check_ended(c, tok)
#endif
     :: else ->
        if
        :: gnet[c] + CLAIM - DRIFT <= now + MARGIN ->
           htok[c] = tok;
           if
           :: !infl[c] ->
#ifdef BUG_DEAD_ON_ARRIVAL
              tmr[c] = now; tact[c] = T_RECHECK   /* "ask Redis instead" */
#else
              tmr[c] = NONE; arrived_too_late(c, gnet[c], 1)
#endif
           :: else
           fi
        :: else -> succeed(c, tok, gnet[c], 1)
        fi
     fi
  :: else   /* HELD, WITHDRAWING, releasing: nothing to do */
  fi
}

/* Acquisition.onReply (l.419-484) and answered (l.486-517); onConfirmed (l.561-586) */
inline on_reply(c) {
  as[c] = S_FREE;
  if
  :: ak[c] == C_CONFIRM ->
     infl[c] = 0;
     if
     :: ph[c] == ACTIVE && acode[c] == R_1 ->
        arrived_too_late(c, asent[c], 0);
        if
        :: !t_ok -> succeed(c, htok[c], asent[c], 0)
        :: else
        fi
     :: ph[c] == ACTIVE && acode[c] != R_1 ->
        if
        :: htok[c] > ended[c] -> ended[c] = htok[c]
        :: else
        fi;
        recheck(c)
     :: ph[c] == WDRAW -> cleanup(c, 0)
     :: else
     fi
  :: else ->
     infl[c] = 0; wsa[c] = 0;
     inredis[c] = !(acode[c] == R_M1 || acode[c] == R_M3);
#ifndef BUG_LATE_GRANT
     if
     :: aiss[c] > ended[c] -> ended[c] = aiss[c]
     :: else
     fi;
#endif
     if
     :: ph[c] == ACTIVE ->
        if
        :: acode[c] == R_1 ->
           htok[c] = atok[c];
           arrived_too_late(c, asent[c], 0);
           if
           :: !t_ok -> succeed(c, atok[c], asent[c], 0)
           :: else
           fi
        :: acode[c] == R_3 ->
           htok[c] = atok[c];
           arrived_too_late(c, gnet[c], 1);
           if
           :: !t_ok -> succeed(c, atok[c], gnet[c], 1)
           :: else
           fi
        :: acode[c] == R_0 -> busy(c)
        :: acode[c] == R_M1 -> fail(c)
        :: acode[c] == R_M3 -> acq_send(c, C_WAIT)
        fi
     :: ph[c] == WDRAW -> cleanup(c, 0)
#if !defined(BUG_LATE_GRANT) && !defined(BUG_NO_HELD_CHECK)
     :: ph[c] == HELD && aiss[c] != 0 && htok[c] <= aiss[c] ->
        /* Acquisition.onReply l.469-479: the grant had ended before this call ran */
        t_cov = 7; lost[c] = 1;   /* cover: held-late-reply */
        check_ended(c, htok[c]);
        if
        :: acode[c] == R_0 && os[c] == S_FREE ->
           t_cov = 8; send_orphan(c)   /* cover: held-late-reply-orphan */
        :: else
        fi
     :: (ph[c] == REL || ph[c] == DONE) && htok[c] != 0 && aiss[c] != 0 && htok[c] <= aiss[c] ->
        /* the same check once the hold is being released, or released (the Acquisition stays
         * HELD): the release went out beside this call (LockState.finish) */
        t_cov = 13; lost[c] = 1;   /* cover: late-reply-after-release */
        if
        :: acode[c] == R_0 && os[c] == S_FREE -> send_orphan(c)
        :: else
        fi
#endif
     :: else
     fi
  fi
}

inline on_error(c, mayrun) {
  as[c] = S_FREE;
  infl[c] = 0; wsa[c] = 0;
  if
  :: ph[c] == ACTIVE -> attempt_failed(c, ak[c], mayrun)
  :: ph[c] == WDRAW -> cleanup(c, 1)
  :: else
  fi
}

/* Release.send (l.78-92) */
inline rel_send(c) {
  if
  :: fsent[c] == NONE -> fsent[c] = now
  :: else
  fi;
  lk[c] = ((unk[c] || lost[c] || now >= vu[c]) -> C_REL2 : C_REL1); lsent[c] = now;
  post(c, lk[c], ls[c], ldue[c])
}

/* a hold that ended in Redis and was taken again by a late call of its owner's own (a timed-out
 * acquisition call that Redis ran late): release.lua checks the owner, not the token, so the
 * release frees the new key and answers 'released'. A release sent past the local deadline
 * reports the loss all the same (LeaseChanges.startClose marks the lease lost first); one sent
 * before it, that reaches Redis only after the hold's end and the late call, cannot tell: that
 * case is left out of reported_loss (see README.md, what point 1 found); -DSTRICT_LOSS keeps it
 * in. */
#ifdef STRICT_LOSS
#define RETOOK(c) false
#else
#define RETOOK(c) (rtk[c] && fsent[c] < vu[c])
#endif

/* Release.onReply (l.103-158) */
inline rel_reply(c) {
  ls[c] = S_FREE;
  t_d = lcode[c];
  if
  :: unk[c] && (t_d == R_0 || t_d == R_M1) && fsent[c] < vu[c] -> t_d = R_2
  :: else
  fi;
  if
  :: !told[c] ->
     told[c] = 1;
     /* told "released cleanly": no loss in the reply, none known before (finishRelease) */
     if
     :: t_d == R_2 && !lost[c] && hend[c] && !amb[c] && !RETOOK(c) -> reported_loss = 0
     :: else
     fi;
     assert(reported_loss);
     /* told "lost" (held by another owner, or expired): only if it was (see no_false_loss) */
     if
     :: (t_d == R_0 || t_d == R_M1) && !lost[c] && !hend[c] && !amb[c] -> no_false_loss = 0
     :: else
     fi;
     assert(no_false_loss)
  :: else
  fi;
  ph[c] = DONE; tmr[c] = NONE
}

/* Release.failed (l.168-197) */
inline rel_error(c, mayrun) {
  ls[c] = S_FREE;
#ifdef BUG_RELEASE_RETRY
  unk[c] = 1;
#else
  unk[c] = unk[c] || mayrun;
#endif
  amb[c] = amb[c] || mayrun;
  if
  :: !told[c] && now >= cdl[c] -> told[c] = 1   /* RelockException or LockLostException */
  :: else
  fi;
  if
  :: now < gua[c] -> tmr[c] = now + 1; tact[c] = T_RELRETRY
  :: else -> ph[c] = DONE; tmr[c] = NONE
  fi
}

/* dead values are zeroed so that states that differ only in them are one state (no behaviour
 * reads them: each is written again before its next use) */
inline normalize(c) {
  if
  :: as[c] == S_FREE -> ak[c] = 0; asent[c] = 0; adue[c] = 0; acode[c] = 0; atok[c] = 0; apttl[c] = 0; aiss[c] = 0;
     aent[c] = 0; aleg[c] = 0
  :: else
  fi;
  if
  :: rs[c] == S_FREE -> rsent[c] = 0; rdue[c] = 0; rheld[c] = 0
  :: else
  fi;
  if
  :: ls[c] == S_FREE -> lk[c] = 0; lsent[c] = 0; ldue[c] = 0; lcode[c] = 0
  :: else
  fi;
  if
  :: os[c] == S_FREE -> odue[c] = 0
  :: else
  fi;
  if
  :: ph[c] != ACTIVE -> wsa[c] = 0; cg[c] = 0
  :: else
  fi;
  if
  :: tmr[c] == NONE -> tact[c] = 0; rmode[c] = 0
  :: else
  fi;
  if
  :: pz[c] <= now -> pz[c] = 0
  :: else
  fi;
  if
  :: ph[c] != IDLE -> st[c] = 0
  :: else
  fi;
  if
  :: ph[c] != ACTIVE && ph[c] != IDLE -> cancelAt[c] = 0
  :: else
  fi;
  if
  :: ph[c] != HELD -> renAt[c] = 0; relAt[c] = 0
  :: else
  fi;
  if
  :: ph[c] != REL -> unk[c] = 0; fsent[c] = 0; cdl[c] = 0; gua[c] = 0; told[c] = 0; amb[c] = 0
  :: else
  fi;
  if
  :: ph[c] == DONE || ph[c] == DEAD ->
     infl[c] = 0; inredis[c] = 0; gnet[c] = 0; ended[c] = 0; dl[c] = 0; vu[c] = 0;
     lost[c] = 0; hend[c] = 0; rtk[c] = 0; rsd[c] = 0; faulted[c] = 0;
     if   /* the token of a released hold is kept while a call of the acquisition is out */
     :: as[c] == S_FREE || ph[c] == DEAD -> htok[c] = 0
     :: else
     fi
  :: else
  fi;
  if
  :: ph[c] == DEAD -> tmr[c] = NONE; tact[c] = 0; rmode[c] = 0; n1[c] = 0; nd1[c] = 0; n2[c] = 0; nd2[c] = 0; conn[c] = 0; pz[c] = 0
  :: else
  fi
}

#define ALIVE(c) (ph[c] != DEAD && now >= pz[c])
#define HAS_EVENT(c) ( \
  (ph[c] == IDLE && now >= st[c]) || \
  ((as[c] == S_REPLY || as[c] == S_ERR || as[c] == S_NOTSENT) && adue[c] <= now) || \
  ((rs[c] == S_REPLY || rs[c] == S_ERR || rs[c] == S_NOTSENT) && rdue[c] <= now) || \
  ((ls[c] == S_REPLY || ls[c] == S_ERR || ls[c] == S_NOTSENT) && ldue[c] <= now) || \
  ((os[c] == S_REPLY || os[c] == S_ERR || os[c] == S_NOTSENT || os[c] == S_RETRY) && odue[c] <= now) || \
  (n1[c] != 0 && nd1[c] <= now) || (n2[c] != 0 && nd2[c] <= now) || \
  tmr[c] <= now || \
  (ph[c] == HELD && ((!lost[c] && now >= vu[c]) || (!lost[c] && now >= renAt[c] && rs[c] == S_FREE) || \
                     now >= relAt[c])) || \
  (ph[c] == ACTIVE && now >= cancelAt[c]) || \
  (!conn[c] && !rdown))

proctype Client(byte c) {
  /* when it starts, and whether (and when) its caller gives up early */
  atomic {
    if
    :: c == 1 -> st[c] = 0
    :: else -> select(t_d : 0 .. SMAX); st[c] = t_d
    fi;
    cancelAt[c] = NONE;
    if
    :: c <= NCANCEL -> cancelAt[c] = st[c]
    :: c <= NCANCEL -> cancelAt[c] = st[c] + 2
    :: skip
    fi
  };
end:
  do
  /* faults: the client pauses (GC, SIGSTOP, CPU) or crashes just before an event */
  :: atomic { ALIVE(c) && HAS_EVENT(c) && faults < FAULTS && ph[c] != IDLE && (PAUSE || CRASH) ->
       faults++; faulted[c] = 1;
       if
       :: PAUSE -> pick_pause(); pz[c] = now + t_d
       :: CRASH -> ph[c] = DEAD; tmr[c] = NONE
       fi;
       normalize(c) }
  /* the caller asks: tryLock(WAIT) (Acquisition.becomeHead) */
  :: atomic { ALIVE(c) && ph[c] == IDLE && now >= st[c] ->
       ph[c] = ACTIVE; dl[c] = now + WAIT; acq_send(c, C_WAIT); check_exclusion();
       normalize(c) }
  /* the caller gives up: interrupt or cancel (Acquisition.withdraw -> fail) */
  :: atomic { ALIVE(c) && ph[c] == ACTIVE && now >= cancelAt[c] -> fail(c);
       normalize(c) }
  /* a reply, or a failed call */
  :: atomic { ALIVE(c) && as[c] == S_REPLY && adue[c] <= now -> on_reply(c); check_exclusion();
       normalize(c) }
  :: atomic { ALIVE(c) && (as[c] == S_ERR || as[c] == S_NOTSENT) && adue[c] <= now ->
       t_ok = (as[c] == S_ERR); on_error(c, t_ok);
       normalize(c) }
  /* the release's reply, or its failed call */
  :: atomic { ALIVE(c) && ls[c] == S_REPLY && ldue[c] <= now -> rel_reply(c); check_exclusion();
       normalize(c) }
  :: atomic { ALIVE(c) && (ls[c] == S_ERR || ls[c] == S_NOTSENT) && ldue[c] <= now ->
       t_ok = (ls[c] == S_ERR); rel_error(c, t_ok);
       normalize(c) }
  /* the orphan withdrawal: answered (its reply is not read), or failed and sent again a tick
   * later (LockCalls.withdrawOrphan's retry) */
  :: atomic { ALIVE(c) && os[c] == S_REPLY && odue[c] <= now -> os[c] = S_FREE;
       normalize(c) }
  :: atomic { ALIVE(c) && (os[c] == S_ERR || os[c] == S_NOTSENT) && odue[c] <= now ->
       os[c] = S_RETRY; odue[c] = now + 1;
       normalize(c) }
  :: atomic { ALIVE(c) && os[c] == S_RETRY && odue[c] <= now -> send_orphan(c);
       normalize(c) }
  /* a grant notification (two may be in flight, in either order) */
  :: atomic { ALIVE(c) && n1[c] != 0 && nd1[c] <= now ->
       t_tok = n1[c]; n1[c] = 0; nd1[c] = 0; granted(c, t_tok); check_exclusion();
       normalize(c) }
  :: atomic { ALIVE(c) && n2[c] != 0 && nd2[c] <= now ->
       t_tok = n2[c]; n2[c] = 0; nd2[c] = 0; granted(c, t_tok); check_exclusion();
       normalize(c) }
  /* the Retry timer */
  :: atomic { ALIVE(c) && tmr[c] <= now ->
       tmr[c] = NONE;
       if
       :: tact[c] == T_RECHECK -> recheck(c)
       :: tact[c] == T_RETRY -> if :: ph[c] == ACTIVE -> acq_send(c, rmode[c]) :: else fi
       :: tact[c] == T_CLEANUP -> if :: ph[c] == WDRAW -> cleanup(c, 0) :: else fi
       :: tact[c] == T_RELRETRY -> if :: ph[c] == REL && ls[c] == S_FREE -> rel_send(c) :: else fi
       fi;
       normalize(c) }
  /* LeaseKeeper.checkExpiry: the local deadline passed: lost, onLost runs */
  :: atomic { ALIVE(c) && ph[c] == HELD && !lost[c] && now >= vu[c] -> lost[c] = 1;
       normalize(c) }
  /* WatchdogRenewer.tick / LeaseKeeper.confirmHandoff: renew.lua */
  :: atomic { ALIVE(c) && ph[c] == HELD && !lost[c] && now >= renAt[c] && rs[c] == S_FREE ->
       renAt[c] = now + WD; rsent[c] = now;
       if
       :: !conn[c] -> rs[c] = S_NOTSENT; rdue[c] = now
       :: else ->
          if
          :: rs[c] = S_OUT; rdue[c] = now
          ::  NET && faults < FAULTS -> faults++; faulted[c] = 1; rs[c] = S_ERR; rdue[c] = now + CT
          ::  NET && faults < FAULTS -> faults++; faulted[c] = 1; rs[c] = S_OUT; pick_delay(); rdue[c] = now + t_d
          ::  STALE && NET && faults < FAULTS && zk[c] == 0 ->   /* timed out; runs later (see post) */
             faults++; faulted[c] = 1; rs[c] = S_ERR; rdue[c] = now + CT;
             zk[c] = C_RENEW; pick_delay(); zdue[c] = now + t_d
          fi
       fi;
       normalize(c) }
  :: atomic { ALIVE(c) && (rs[c] == S_REPLY || rs[c] == S_ERR || rs[c] == S_NOTSENT) && rdue[c] <= now ->
       if
       :: rs[c] == S_REPLY && rheld[c] && ph[c] == HELD ->   /* HeldLease.renewed, extendTo */
          if
#ifndef BUG_CLOSE_PAST_DEADLINE
          :: now >= vu[c] -> skip   /* past the local deadline: lost, never revived */
          :: now < vu[c] && rsent[c] + LEASE - DRIFT > vu[c] -> vu[c] = rsent[c] + LEASE - DRIFT
#else
          :: rsent[c] + LEASE - DRIFT > vu[c] -> vu[c] = rsent[c] + LEASE - DRIFT
#endif
          :: else
          fi
       :: rs[c] == S_REPLY && !rheld[c] && ph[c] == HELD -> lost[c] = 1
       :: rs[c] != S_REPLY && ph[c] == HELD -> renAt[c] = now + 1
       :: else
       fi;
       rs[c] = S_FREE; rheld[c] = 0;
       check_exclusion();
       normalize(c) }
  /* the caller closes its hold (LeaseChanges.close -> Release) */
  :: atomic { ALIVE(c) && ph[c] == HELD && now >= relAt[c] ->   /* at once, beside any call out */
#ifndef BUG_CLOSE_PAST_DEADLINE
       if   /* LeaseChanges.startClose: isValid() marks a lease past its local deadline lost first */
       :: !lost[c] && now >= vu[c] -> lost[c] = 1
       :: else
       fi;
#endif
       ph[c] = REL; told[c] = 0; unk[c] = 0; fsent[c] = NONE; tmr[c] = NONE;
       cdl[c] = now + CT;
       gua[c] = (vu[c] + DRIFT > cdl[c] -> vu[c] + DRIFT : cdl[c]);
       rel_send(c);
       normalize(c) }
  /* the connection comes back (reconnected: timers fire now) */
  :: atomic { ALIVE(c) && !conn[c] && !rdown ->
       conn[c] = 1;
       if
       :: tmr[c] != NONE -> tmr[c] = now
       :: else
       fi;
       normalize(c) }
  od
}

/* ================================ time ================================ */

active proctype Time() {
end:
  do
  :: atomic { timeout && now < TMAX ->
       check_wakeup();
       now++;
       rdown = 0;
       /* lease expiry: the key is gone */
       if
       :: lo != 0 && lexp <= now -> hend[lo] = hend[lo] || !relran[lo]; delete_lock()
       :: else
       fi;
       /* the queue keys' expiry */
       if
       :: qn > 0 && qkexp <= now ->
          t_i = 0;
          do
          :: t_i < qn -> qexp[q[t_i]] = 0; qleg[q[t_i]] = 0; q[t_i] = 0; t_i++
          :: else -> break
          od;
          qn = 0; qkexp = 0
       :: else
       fi;
       check_free_within();
       /* a Redis restart without data somewhere in this tick */
       if
       :: RESTART && faults < FAULTS -> faults++; rstart = 1
       :: skip
       fi;
       t_k = 1;
       do
       :: t_k <= N -> normalize(t_k); t_k++
       :: else -> break
       od;
       check_exclusion() }
  od
}

init {
  atomic {
    t_i = 1;
    do
    :: t_i <= N ->
       gnet[t_i] = NONE; tmr[t_i] = NONE; conn[t_i] = 1; fsent[t_i] = NONE;
       run Client(t_i);
       t_i++
    :: else -> break
    od
  }
}

/* no lock held for nobody: once every caller has stopped (released, gave up, crashed), the lock
 * and its queue become free (ALL_STOPPED and LOCK_FREE are defined with the properties above) */
ltl no_lock_for_nobody { [] (ALL_STOPPED -> <> LOCK_FREE) }

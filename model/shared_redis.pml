/*
 * shared_redis.pml: what the models of relock's shared kinds (readwrite.pml, semaphore.pml) have
 * in common on Redis's side: the bounds, the state of Redis and of the clients, the properties
 * every kind has, and the script parts those kinds share (fence.lua, queue.lua, holders.lua).
 * Not a model of its own: a kind's model includes it first, then defines its scripts, then
 * includes shared_engine.pml (the client engine, Redis's process, time).
 *
 * Everything here follows relock.pml (the exclusive lock's model): the same bounds, the same
 * names, the same fault budget; see README.md. What differs: a shared kind's hold is a key of its
 * owner's (KEYS[1]:h:<owner>, holders.lua), several owners may hold at once, a grant has a serial
 * beside its token (a reader that joins a read epoch carries the epoch's token), and the fence
 * never carries the waiters mark (only handoff.lua, the exclusive kind's, writes it).
 */

#ifndef N
#define N 2
#endif
#ifndef FAULTS
#define FAULTS 1
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
#ifndef HL
#define HL    3    /* a caller holds the lock 0 or HL ticks, then closes it */
#endif
#ifndef SMAX
#define SMAX  2    /* clients 2..N start at tick SMIN..SMAX (client 1 at 0) */
#endif
#ifndef SMIN
#define SMIN  0
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
#define HIDDEN
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
#define C_REL1    6   /* the kind's release script, ARGV[2]='1' (a shared hold's release is never careful) */

/* a call slot's state */
#define S_FREE    0
#define S_OUT     1   /* request on its way to Redis */
#define S_REPLY   2   /* reply on its way back */
#define S_ERR     3   /* failed; may have run (timeout, connection reset) */
#define S_NOTSENT 4   /* failed; never sent (CommandNotSentException) */

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
#define T_ORPHAN   5

byte now;
byte faults;
bool rdown;      /* Redis restarting: down until the next tick */
bool rstart;     /* a restart is due within this tick */

/* ---- Redis ---- */
bool mk;         /* the name's marker KEYS[1] (holders.lua claim_kind): "semaphore <permits>", "readwrite" */
byte hexp[NA];   /* the hold key KEYS[1]:h:<owner>: its expiry (tick; 0: no key) */
byte htk[NA];    /* its token */
byte hsr[NA];    /* its grant's serial (a read hold's 'since'; a write hold's and a permit's is the token) */
byte fv;         /* fence: last token issued (0: no fence key) */
byte q[N];       /* queue :q, oldest first */
byte qn;
byte qexp[NA];   /* :qi entry expiry per owner */
byte qkexp;      /* expiry of the queue keys (enqueue's PEXPIRE) */
byte hleg[NA];   /* ghost: the latest tick each hold key may legitimately last (see free_within) */
byte qleg[NA];   /* ghost: the latest tick each queue entry may legitimately live (see free_within) */

/* ---- clients (index 1..N) ---- */
byte ph[NA];
bool infl[NA];      /* Acquisition.inFlight */
bool inredis[NA];   /* Acquisition.inRedis */
byte gnet[NA];      /* grantNoEarlierThan */
byte ended[NA];     /* endedGrantsUpTo (a serial) */
byte dl[NA];        /* the wait's deadline */
byte st[NA];        /* start tick */
byte cancelAt[NA];  /* the caller gives up (interrupt/cancel) at this tick, or NONE */
byte tmr[NA];       /* the Retry timer: due tick or NONE */
byte tact[NA];      /* and what it does */
byte rmode[NA];     /* the call a T_RETRY sends */
byte htok[NA];      /* HeldLease.token */
byte hser[NA];      /* HeldLease.serial */
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
bool orph[NA];      /* withdrawing an orphaned grant (LockCalls.withdrawOrphan) */
/* the call slot (the acquire and release scripts, Acquisition.confirm); aiss is the reply's
 * fourth element: 'issued' after code 0 or -3, the grant's serial after 1 or 3 */
byte ak[NA]; byte as[NA]; byte asent[NA]; byte adue[NA];
byte acode[NA]; byte atok[NA]; byte apttl[NA]; byte aiss[NA];
byte aent[NA];   /* the call's ARGV[5]: its queue entry's lifetime (Acquisition.entryLifetimeMillis) */
byte aleg[NA];   /* ghost: that lifetime as the wait's deadline allows it (differs only with a defect) */
/* the watchdog's slot (renew.lua) */
byte rs[NA]; byte rsent[NA]; byte rdue[NA]; bool rheld[NA];
/* grant notifications on the client's channel: serial and token (0: none), arrival tick */
byte n1[NA]; byte ns1[NA]; byte nd1[NA]; byte n2[NA]; byte ns2[NA]; byte nd2[NA];

/* ---- ghosts (what the properties look at; no client or script reads them) ---- */
byte maxtok;        /* highest serial ever issued, across restarts */
bool hend[NA];      /* this owner's hold ended in Redis other than by its own call */
bool amb[NA];       /* a release attempt of it failed with its outcome unknown */
bool rsd[NA];       /* Redis restarted without data during this client's acquisition or hold */
bool faulted[NA];   /* a fault hit this client's messages or it was paused */

/* property flags, asserted by name (the kind's own is declared in its model) */
bool held_in_redis = 1;
bool fence_order = 1;
bool no_lost_wakeup = 1;
bool valid_on_arrival = 1;
bool reported_loss = 1;
bool no_false_end = 1;
bool free_within = 1;

/* temporaries of a script run or an event (not part of the state) */
HIDDEN byte t_c, t_i, t_j, t_k, t_v, t_tok, t_first, t_pttl, t_d, t_ok, t_h, t_iss;
/* and of the property checks */
HIDDEN byte p_i, p_j, p_k, p_n, p_res;
HIDDEN byte t_e;   /* the drift of the key written now: 0, DRIFT (on time) or 2*DRIFT, see pick_drift */
HIDDEN byte t_cov;   /* t_cov = N begins each line marked "cover: NAME" (see relock.pml) */

/* HeldLease.isValid, for a client Redis did not lose the data of during its hold */
#define VALID(c) (ph[c] == HELD && !lost[c] && now < vu[c] && !rsd[c])
/* the hold key of owner c exists (a key's expiry is applied when time moves on) */
#define HOLDS(c) (hexp[c] != 0)
/* a caller has stopped once it released (or is releasing), gave up (or is withdrawing), or
 * crashed; a phase never goes back below WDRAW */
#define ALL_STOPPED ((ph[1] >= WDRAW) && (N < 2 || ph[2] >= WDRAW) && (N < 3 || ph[N] >= WDRAW))

/* ================================ properties ================================ */

/* held in Redis: a client that counts its lease valid (HeldLease.isValid) has its hold key in
 * Redis, unless Redis restarted without its data meanwhile (the documented hole fencing covers);
 * then the kind's own rule (check_kind: exclusion, permits) */
inline check_safety() {
  p_i = 1;
  do
  :: p_i <= N ->
     if
     :: VALID(p_i) && !HOLDS(p_i) -> held_in_redis = 0
     :: else
     fi;
     p_i++
  :: else -> break
  od;
  assert(held_in_redis);
  check_kind()
}

/* no false end: a grant the client counts as ended (a notification at or below
 * endedGrantsUpTo, ignored as late; a hold a reply's 'issued' says had ended before the call
 * ran) is not the caller's live hold in Redis (see relock.pml) */
inline check_ended(c, ser) {
  if
  :: HOLDS(c) && hsr[c] == ser -> no_false_end = 0
  :: else
  fi;
  assert(no_false_end)
}

/* fencing: every serial written to the fence is above every serial issued before it, across
 * restarts (max(fence + 1, server time)) */
inline issued_token(t) {
  if
  :: t <= maxtok -> fence_order = 0
  :: else -> maxtok = t
  fi;
  assert(fence_order)
}

/* no lost wake-up: when time moves on, no waiter that no fault touched, whose wait has not run
 * out and that has nothing in flight, is left to its recheck interval while the kind's hand-over
 * would serve it now (servable): its next recheck is due within the drift allowance */
inline check_wakeup() {
  p_n = 1;
  do
  :: p_n <= N ->
     if
     :: ph[p_n] == ACTIVE && !infl[p_n] && conn[p_n] && !faulted[p_n] && !rsd[p_n] &&
        now < dl[p_n] && now >= pz[p_n] && (tmr[p_n] == NONE || tmr[p_n] > now + DRIFT) ->
        servable(p_n, p_res);
        if
        :: p_res -> no_lost_wakeup = 0
        :: else
        fi
     :: else
     fi;
     p_n++
  :: else -> break
  od;
  assert(no_lost_wakeup)
}

/* free within (the exclusive model's, per hold key): once every caller has stopped, each hold key
 * is gone by the end of the hold it may legitimately stand for (hleg, a ghost written beside each
 * write of the key, by what the write is for: a lease from an acquisition or a renewal of its
 * owner's own, a claim time from a hand-over; by Redis's clock, the drift of that write), and a
 * queue entry whose caller has stopped is dead by the end its wait allows (qleg, as in
 * relock.pml). Checked when time moves on, after the keys due to expire have expired. */
inline check_free_within() {
  p_i = 1;
  do
  :: p_i <= N ->
     if
     :: ALL_STOPPED && HOLDS(p_i) && now >= hleg[p_i] -> free_within = 0
     :: ph[p_i] >= WDRAW && qexp[p_i] > now && now >= qleg[p_i] -> free_within = 0
     :: else
     fi;
     p_i++
  :: else -> break
  od;
  assert(free_within)
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

/* Redis's clock against the clients' (issue 42, point 5), as in relock.pml: a key written now for
 * px lives px of Redis's time, which by the clients' clocks is px less or more the drift allowance,
 * chosen afresh at each write. t_e is 0 (fast), DRIFT (on time) or 2*DRIFT (slow). */
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

/* fence.lua issue_token (l.71-74) with settle_fence (l.36-51): the next serial is
 * max(fence + 1, server time); the fence holds no waiters mark for a shared kind */
inline issue_token() {
  if
  :: fv >= NOWUS -> t_tok = fv + 1
  :: else -> t_tok = NOWUS
  fi;
  assert(t_tok < NOWUS + K && t_tok < 250);   /* model bound: fewer than K serials a tick, and a byte */
  fv = t_tok;
  issued_token(t_tok)
}

/* the scripts' issued(): max(read_fence(), now_us - 1), below every serial issued later (see
 * relock.pml) */
#ifdef BUG_ISSUED_SAME_US
#define ISSUED (fv > NOWUS -> fv : NOWUS)
#else
#define ISSUED (fv > NOWUS - 1 -> fv : NOWUS - 1)
#endif

/* holders.lua add_hold (l.155-169): the hold key of w, for px from now (the index, the marker and
 * their expiries are not modelled: see README.md) */
inline add_hold(w, tok, ser, px) {
  pick_drift();
  hexp[w] = DRIFTED(px); htk[w] = tok; hsr[w] = ser;
  hleg[w] = hexp[w];   /* ghost: a hold written for px may last px, by Redis's clock */
  hend[w] = 0
}

/* holders.lua drop_hold (l.177-182) */
inline drop_hold(w) {
  hexp[w] = 0; htk[w] = 0; hsr[w] = 0; hleg[w] = 0
}

/* holders.lua live_holders (l.121-142, with sooner l.145-150) over every live hold: ticks until the first ends; NONE if none */
inline soonest_end() {
  t_pttl = NONE;
  t_i = 1;
  do
  :: t_i <= N ->
     if
     :: HOLDS(t_i) && hexp[t_i] - now < t_pttl -> t_pttl = hexp[t_i] - now
     :: else
     fi;
     t_i++
  :: else -> break
  od
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

/* whether the queue has a live entry (a ghost read: removes nothing) */
inline any_live_entry(res) {
  res = 0;
  p_j = 0;
  do
  :: p_j < qn -> if :: qexp[q[p_j]] > now -> res = 1 :: else fi; p_j++
  :: else -> break
  od
}

/* queue.lua notify (l.108-119): PUBLISH "<serial>[:<token>] <owner> <state>" on the waiter's
 * channel; delivered, delayed or lost */
inline notify(w, ser, tok) {
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
     :: t_d != NONE && n1[w] == 0 -> n1[w] = tok; ns1[w] = ser; nd1[w] = now + t_d
     :: t_d != NONE && n1[w] != 0 && n2[w] == 0 ->
        t_cov = 4; n2[w] = tok; ns2[w] = ser; nd2[w] = now + t_d   /* cover: second-notification */
     :: else -> assert(false)   /* model bound: two notifications in flight per client */
     fi
  fi
}

/* a reply on its way back: delivered, delayed or lost */
inline reply(c, code, tok, pttl, fourth) {
  acode[c] = code; atok[c] = tok; apttl[c] = pttl; aiss[c] = fourth;
  if
  :: as[c] = S_REPLY; adue[c] = now
  ::  NET && faults < FAULTS -> faults++; faulted[c] = 1; as[c] = S_ERR;
     adue[c] = (asent[c] + CT > now -> asent[c] + CT : now)
  ::  NET && faults < FAULTS -> faults++; faulted[c] = 1; as[c] = S_REPLY; pick_delay(); adue[c] = now + t_d
  fi
}

/* renew.lua (l.43-49) for one shared hold: extended if its owner's key is there (a shared
 * hold's key is its owner's alone) */
inline renew_one(c, res) {
  if
  :: HOLDS(c) -> pick_drift(); hexp[c] = DRIFTED(LEASE); hleg[c] = hexp[c]; res = 1
  :: else -> res = 0
  fi
}

/* Redis restarts without its data: every key gone, connections reset */
inline restart() {
  t_i = 1;
  do
  :: t_i <= N ->
     if
     :: HOLDS(t_i) -> hend[t_i] = 1; drop_hold(t_i)
     :: else
     fi;
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
     n1[t_i] = 0; ns1[t_i] = 0; nd1[t_i] = 0; n2[t_i] = 0; ns2[t_i] = 0; nd2[t_i] = 0;
     t_i++
  :: else -> break
  od;
  mk = 0; fv = 0;
  t_i = 0;
  do
  :: t_i < N -> q[t_i] = 0; t_i++
  :: else -> break
  od;
  qn = 0; qkexp = 0;
  rdown = 1; rstart = 0
}

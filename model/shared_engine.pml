/*
 * shared_engine.pml: the client engine, Redis's process and time for the models of relock's shared
 * kinds (readwrite.pml, semaphore.pml). Not a model of its own: a kind's model includes
 * shared_redis.pml, defines its scripts (acquire, release) and its checks (check_kind, servable,
 * kind_start), then includes this.
 *
 * The engine is relock.pml's, step for step (Acquisition, HeldLease, Release, the watchdog,
 * LeaseKeeper.confirmHandoff), with what a shared kind changes: a grant has a serial beside its
 * token (Acquisition.onReply: the fourth element of a reply to a grant; a notification's
 * "<serial>:<token>"), endedGrantsUpTo and the HELD-phase check compare serials, and a release is
 * never careful (LockKind.Shared.releaseArgs: ARGV[2] is always '1').
 */

/* ================================ clients ================================ */

/* send a call on the slot: never sent while disconnected; else arrives, is lost or delayed */
inline send(c, kind) {
  ak[c] = kind; asent[c] = now;
  if
  :: !conn[c] -> as[c] = S_NOTSENT; adue[c] = now
  :: else ->
     if
     :: as[c] = S_OUT; adue[c] = now
     ::  NET && faults < FAULTS -> faults++; faulted[c] = 1; as[c] = S_ERR; adue[c] = now + CT
     ::  NET && faults < FAULTS -> faults++; faulted[c] = 1; as[c] = S_OUT; pick_delay(); adue[c] = now + t_d
     fi
  fi
}

/* Acquisition.send (l.372-399) */
inline acq_send(c, kind) {
  infl[c] = 1; inredis[c] = 1;
  if
  :: gnet[c] == NONE -> gnet[c] = now
  :: else
  fi;
  if   /* ARGV[5], Acquisition.entryLifetimeMillis (l.409-417): 3 recheck intervals, never past the
        * wait's deadline (its "+ 1" ms is below a tick; at least 1); only a 'wait' or 'recheck' queues */
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
inline succeed(c, tok, ser, from, handed) {
  if
  :: ph[c] == ACTIVE ->
     tmr[c] = NONE;
     ph[c] = HELD; htok[c] = tok; hser[c] = ser; lost[c] = 0;
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
  if
#ifdef BUG_HANDOVER_DEAD_ON_ARRIVAL
  :: handed -> t_ok = 0   /* abcf149's hand-over half put back: counted from `from` whatever */
  :: !handed && from + LEASE - DRIFT > now -> t_ok = 0
#else
  :: from + (handed -> CLAIM : LEASE) - DRIFT > now + (handed -> MARGIN : 0) -> t_ok = 0
#endif
  :: else ->
     t_ok = 1;
     if
     :: now >= dl[c] ->
        t_cov = 1; fail(c)   /* cover: too-late-grant-given-up */
     :: else ->
        t_cov = 2; acq_send(c, C_CONFIRM)   /* confirm (l.554-559); cover: too-late-grant-confirmed */
     fi
  fi
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
  t_d = (apttl[c] < RI -> apttl[c] : RI);
  if
  :: dl[c] - now < t_d -> t_d = dl[c] - now
  :: else
  fi;
  tmr[c] = now + t_d; tact[c] = T_RECHECK
}

/* Acquisition.attemptFailed (l.648-666) */
inline attempt_failed(c, kind) {
  if
  :: now >= dl[c] -> fail(c)
  :: else ->
     tmr[c] = now + 1; tact[c] = T_RETRY;
     rmode[c] = (kind == C_RECHECK || kind == C_CONFIRM -> C_WAIT : kind)
  fi
}

/* Acquisition.granted (l.724-748), from LockState.granted: a grant notification */
inline granted(c, ser, tok) {
  if
  :: ph[c] == DONE && !orph[c] && as[c] == S_FREE ->
     t_cov = 6; orph[c] = 1; send(c, C_ABANDON)   /* LockState.granted: an orphan, withdrawn; cover: orphan-grant-withdrawn */
  :: ph[c] == ACTIVE ->
     if
     :: ser <= ended[c] ->   /* a late notification of a grant that has ended */
        t_cov = 3;   /* cover: late-notification-ignored */
        check_ended(c, ser)
     :: else ->
        if
        :: gnet[c] + CLAIM - DRIFT <= now + MARGIN ->
           htok[c] = tok; hser[c] = ser;
           if
           :: !infl[c] ->
#ifdef BUG_HANDOVER_DEAD_ON_ARRIVAL
              tmr[c] = now; tact[c] = T_RECHECK   /* before abcf149: "ask Redis instead" */
#else
              tmr[c] = NONE; arrived_too_late(c, gnet[c], 1)
#endif
           :: else
           fi
        :: else -> succeed(c, tok, ser, gnet[c], 1)
        fi
     fi
  :: else   /* HELD, WITHDRAWING, releasing: nothing to do */
  fi
}

/* Acquisition.onReply (l.419-484) and answered (l.486-517); onConfirmed (l.561-586) */
inline on_reply(c) {
  as[c] = S_FREE;
  if
  :: orph[c] -> orph[c] = 0   /* the orphan's withdrawal answered */
  :: ph[c] == REL -> skip     /* not here */
  :: ak[c] == C_CONFIRM ->
     infl[c] = 0;
     if
     :: ph[c] == ACTIVE && acode[c] == R_1 ->
        arrived_too_late(c, asent[c], 0);
        if
        :: !t_ok -> succeed(c, htok[c], hser[c], asent[c], 0)
        :: else
        fi
     :: ph[c] == ACTIVE && acode[c] != R_1 ->
        if
        :: hser[c] > ended[c] -> ended[c] = hser[c]
        :: else
        fi;
        recheck(c)
     :: ph[c] == WDRAW -> cleanup(c, 0)
     :: else
     fi
  :: else ->
     infl[c] = 0;
     inredis[c] = !(acode[c] == R_M1 || acode[c] == R_M3);
     /* the fourth element: 'issued' after 0 or -3; a grant's serial after 1 or 3 (else its token) */
     t_iss = ((acode[c] == R_0 || acode[c] == R_M3) -> aiss[c] : 0);
     if
     :: t_iss > ended[c] -> ended[c] = t_iss
     :: else
     fi;
     if
     :: ph[c] == ACTIVE ->
        if
        :: acode[c] == R_1 ->
           htok[c] = atok[c]; hser[c] = (aiss[c] > 0 -> aiss[c] : atok[c]);
           arrived_too_late(c, asent[c], 0);
           if
           :: !t_ok -> succeed(c, htok[c], hser[c], asent[c], 0)
           :: else
           fi
        :: acode[c] == R_3 ->
           htok[c] = atok[c]; hser[c] = (aiss[c] > 0 -> aiss[c] : atok[c]);
           arrived_too_late(c, gnet[c], 1);
           if
           :: !t_ok -> succeed(c, htok[c], hser[c], gnet[c], 1)
           :: else
           fi
        :: acode[c] == R_0 -> busy(c)
        :: acode[c] == R_M1 -> fail(c)
        :: acode[c] == R_M3 -> acq_send(c, C_WAIT)
        fi
     :: ph[c] == WDRAW -> cleanup(c, 0)
     :: ph[c] == HELD && t_iss != 0 && hser[c] <= t_iss ->
        /* Acquisition.onReply l.469-479: the grant had ended before this call ran */
        t_cov = 7; lost[c] = 1;   /* cover: held-late-reply */
        check_ended(c, hser[c]);
        if
        :: acode[c] == R_0 && as[c] == S_FREE ->
           t_cov = 8; orph[c] = 1; send(c, C_ABANDON)   /* cover: held-late-reply-orphan */
        :: else
        fi
     :: else
     fi
  fi
}

inline on_error(c, mayrun) {
  as[c] = S_FREE;
  if
  :: orph[c] -> orph[c] = 0; tmr[c] = now + 1; tact[c] = T_ORPHAN   /* retried */
  :: ph[c] == REL -> skip
  :: else ->
     infl[c] = 0;
     if
     :: ph[c] == ACTIVE -> attempt_failed(c, ak[c])
     :: ph[c] == WDRAW -> cleanup(c, 1)
     :: else
     fi
  fi
}

/* Release.send (l.78-92): a shared hold's release is never careful (LockKind.Shared.releaseArgs) */
inline rel_send(c) {
  if
  :: fsent[c] == NONE -> fsent[c] = now
  :: else
  fi;
  send(c, C_REL1)
}

/* Release.onReply (l.103-158) */
inline rel_reply(c) {
  as[c] = S_FREE;
  t_d = acode[c];
  if
  :: unk[c] && (t_d == R_0 || t_d == R_M1) && fsent[c] < vu[c] -> t_d = R_2
  :: else
  fi;
  if
  :: !told[c] ->
     told[c] = 1;
     /* told "released cleanly": no loss in the reply, none known before (finishRelease) */
     if
     :: t_d == R_2 && !lost[c] && hend[c] && !amb[c] -> reported_loss = 0
     :: else
     fi;
     assert(reported_loss)
  :: else
  fi;
  ph[c] = DONE; tmr[c] = NONE
}

/* Release.failed (l.168-197) */
inline rel_error(c, mayrun) {
  as[c] = S_FREE;
  unk[c] = unk[c] || mayrun;
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
     infl[c] = 0; inredis[c] = 0; gnet[c] = 0; ended[c] = 0; dl[c] = 0; htok[c] = 0; hser[c] = 0; vu[c] = 0;
     lost[c] = 0; hend[c] = 0; rsd[c] = 0; faulted[c] = 0
  :: else
  fi;
  if
  :: ph[c] == DEAD -> tmr[c] = NONE; tact[c] = 0; rmode[c] = 0; n1[c] = 0; ns1[c] = 0; nd1[c] = 0;
     n2[c] = 0; ns2[c] = 0; nd2[c] = 0; conn[c] = 0; pz[c] = 0
  :: else
  fi
}

#define ALIVE(c) (ph[c] != DEAD && now >= pz[c])
#define HAS_EVENT(c) ( \
  (ph[c] == IDLE && now >= st[c]) || \
  ((as[c] == S_REPLY || as[c] == S_ERR || as[c] == S_NOTSENT) && adue[c] <= now) || \
  ((rs[c] == S_REPLY || rs[c] == S_ERR || rs[c] == S_NOTSENT) && rdue[c] <= now) || \
  (n1[c] != 0 && nd1[c] <= now) || (n2[c] != 0 && nd2[c] <= now) || \
  tmr[c] <= now || \
  (ph[c] == HELD && ((!lost[c] && now >= vu[c]) || (!lost[c] && now >= renAt[c] && rs[c] == S_FREE) || \
                     (now >= relAt[c] && as[c] == S_FREE))) || \
  (ph[c] == ACTIVE && now >= cancelAt[c]) || \
  (!conn[c] && !rdown))

proctype Client(byte c) {
  /* when it starts, whether (and when) its caller gives up early, and the kind's choices */
  atomic {
    if
    :: c == 1 -> st[c] = 0
    :: else -> select(t_d : SMIN .. SMAX); st[c] = t_d
    fi;
    cancelAt[c] = NONE;
    if
    :: c <= NCANCEL -> cancelAt[c] = st[c]
    :: c <= NCANCEL -> cancelAt[c] = st[c] + 2
    :: skip
    fi;
    kind_start(c)
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
       ph[c] = ACTIVE; dl[c] = now + WAIT; acq_send(c, C_WAIT); check_safety();
       normalize(c) }
  /* the caller gives up: interrupt or cancel (Acquisition.withdraw -> fail) */
  :: atomic { ALIVE(c) && ph[c] == ACTIVE && now >= cancelAt[c] -> fail(c);
       normalize(c) }
  /* a reply, or a failed call */
  :: atomic { ALIVE(c) && as[c] == S_REPLY && adue[c] <= now ->
       if
       :: ph[c] == REL && !orph[c] -> rel_reply(c)
       :: else -> on_reply(c)
       fi;
       check_safety();
       normalize(c) }
  :: atomic { ALIVE(c) && (as[c] == S_ERR || as[c] == S_NOTSENT) && adue[c] <= now ->
       t_ok = (as[c] == S_ERR);
       if
       :: ph[c] == REL && !orph[c] -> rel_error(c, t_ok)
       :: else -> on_error(c, t_ok)
       fi;
       normalize(c) }
  /* a grant notification (two may be in flight, in either order) */
  :: atomic { ALIVE(c) && n1[c] != 0 && nd1[c] <= now ->
       t_tok = n1[c]; t_v = ns1[c]; n1[c] = 0; ns1[c] = 0; nd1[c] = 0; granted(c, t_v, t_tok); check_safety();
       normalize(c) }
  :: atomic { ALIVE(c) && n2[c] != 0 && nd2[c] <= now ->
       t_tok = n2[c]; t_v = ns2[c]; n2[c] = 0; ns2[c] = 0; nd2[c] = 0; granted(c, t_v, t_tok); check_safety();
       normalize(c) }
  /* the Retry timer */
  :: atomic { ALIVE(c) && tmr[c] <= now ->
       tmr[c] = NONE;
       if
       :: tact[c] == T_RECHECK -> recheck(c)
       :: tact[c] == T_RETRY -> if :: ph[c] == ACTIVE -> acq_send(c, rmode[c]) :: else fi
       :: tact[c] == T_CLEANUP -> if :: ph[c] == WDRAW -> cleanup(c, 0) :: else fi
       :: tact[c] == T_RELRETRY -> if :: ph[c] == REL && as[c] == S_FREE -> rel_send(c) :: else fi
       :: tact[c] == T_ORPHAN -> if :: as[c] == S_FREE -> orph[c] = 1; send(c, C_ABANDON) :: else fi
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
          fi
       fi;
       normalize(c) }
  :: atomic { ALIVE(c) && (rs[c] == S_REPLY || rs[c] == S_ERR || rs[c] == S_NOTSENT) && rdue[c] <= now ->
       if
       :: rs[c] == S_REPLY && rheld[c] && ph[c] == HELD ->   /* HeldLease.renewed */
          if
          :: rsent[c] + LEASE - DRIFT > vu[c] -> vu[c] = rsent[c] + LEASE - DRIFT
          :: else
          fi
       :: rs[c] == S_REPLY && !rheld[c] && ph[c] == HELD -> lost[c] = 1
       :: rs[c] != S_REPLY && ph[c] == HELD -> renAt[c] = now + 1
       :: else
       fi;
       rs[c] = S_FREE; rheld[c] = 0;
       check_safety();
       normalize(c) }
  /* the caller closes its hold (LeaseChanges.close -> Release) */
  :: atomic { ALIVE(c) && ph[c] == HELD && now >= relAt[c] && as[c] == S_FREE ->
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

/* ================================ Redis ================================ */

#define WORK(c) ((as[c] == S_OUT && adue[c] <= now) || (rs[c] == S_OUT && rdue[c] <= now))

active proctype Redis() {
end:
  do
  :: atomic { rstart -> restart(); check_safety() }
  :: atomic {
       !rdown && !rstart && (WORK(1) || WORK(2) || (N >= 3 && WORK(3))) ->
       /* any call whose request has arrived, in any order */
       if
       :: WORK(1) -> t_c = 1
       :: WORK(2) -> t_c = 2
       :: N >= 3 && WORK(3) -> t_c = 3
       fi;
       if
       :: as[t_c] == S_OUT && adue[t_c] <= now ->
          if
          :: ak[t_c] == C_WAIT || ak[t_c] == C_RECHECK || ak[t_c] == C_GIVEUP || ak[t_c] == C_ABANDON ->
             acquire(t_c, ak[t_c])
          :: ak[t_c] == C_REL1 -> release(t_c)
          :: ak[t_c] == C_CONFIRM -> renew_one(t_c, t_ok); t_v = (t_ok -> R_1 : R_0); reply(t_c, t_v, 0, 0, 0)
          fi
       :: rs[t_c] == S_OUT && rdue[t_c] <= now ->   /* the watchdog's renew.lua */
          renew_one(t_c, t_ok);
          rheld[t_c] = t_ok;
          if
          :: rs[t_c] = S_REPLY; rdue[t_c] = now
          ::  NET && faults < FAULTS -> faults++; faulted[t_c] = 1; rs[t_c] = S_ERR;
             rdue[t_c] = (rsent[t_c] + CT > now -> rsent[t_c] + CT : now)
          ::  NET && faults < FAULTS -> faults++; faulted[t_c] = 1; rs[t_c] = S_REPLY; pick_delay(); rdue[t_c] = now + t_d
          fi
       fi;
       check_safety()
     }
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
       /* lease expiry: hold keys whose time is up are gone */
       t_i = 1;
       do
       :: t_i <= N ->
          if
          :: HOLDS(t_i) && hexp[t_i] <= now -> hend[t_i] = 1; drop_hold(t_i)
          :: else
          fi;
          t_i++
       :: else -> break
       od;
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
       check_safety() }
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

/* no lock held for nobody: once every caller has stopped (released, gave up, crashed: ALL_STOPPED,
 * in shared_redis.pml), every hold and the queue are gone */
#define LOCK_FREE (hexp[1] == 0 && hexp[2] == 0 && hexp[3] == 0 && qn == 0)
ltl no_lock_for_nobody { [] (ALL_STOPPED -> <> LOCK_FREE) }

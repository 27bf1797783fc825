package io.relock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.LeaderCandidate;
import io.relock.LeaderListener;
import io.relock.Leadership;
import io.relock.Relock;
import io.relock.testkit.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Leader election ({@link Relock#leader}): one leader at a time, terms that strictly increase,
 * revocation when the lease is lost or forced away, yield, close.
 */
public abstract class LeaderContract extends RelockContract {
  private static final String ELECTION = "election";
  /** Longer than any test: only a hand-over (not a waiter's own re-check) elects the next leader in time. */
  private static final Duration NO_RECHECK = Duration.ofMinutes(1);

  /** A started candidate of {@code relock} in {@link #ELECTION}, heard by a new recorder. */
  private static LeaderCandidate candidate(Relock relock, LeaderRecorder recorder) {
    LeaderCandidate c = relock.leader(ELECTION);
    c.addListener(recorder);
    c.start();
    return c;
  }

  /**
   * Has {@code c} note, when it hears onRevoked, who holds the election's lock in Redis then: a
   * yield or close must revoke before it releases.
   */
  private AtomicReference<String> holderWhenRevoked(LeaderCandidate c) {
    AtomicReference<String> holder = new AtomicReference<>("(not revoked)");
    c.addListener(new LeaderListener() {
      @Override
      public void onRevoked(Leadership leadership) {
        holder.set(String.valueOf(holderInRedis(ELECTION)));
      }
    });
    return holder;
  }

  private void awaitQueued(int waiters) {
    await(waiters + " candidate(s) queued in Redis", () -> redis("ZCARD", lockKey(ELECTION) + ":q").equals((long) waiters));
  }

  private static void awaitLeading(LeaderCandidate c, LeaderRecorder heard, int elections) {
    await(c + " elected (" + elections + ")", () -> heard.elections() == elections && c.isLeader());
  }

  @Test
  void aLoneCandidate_isElected_withItsLocksFencingTokenAsTheTerm_onItsOwnThread() throws Exception {
    LeaderRecorder heard = new LeaderRecorder();
    try (LeaderCandidate c = candidate(client(), heard)) {
      Leadership leadership = c.awaitLeadership(PATIENCE).orElseThrow();
      assertThat(c.isLeader()).isTrue();
      assertThat(c.leadership()).containsSame(leadership);
      assertThat(leadership.isValid()).isTrue();
      assertThat(leadership.name()).isEqualTo(ELECTION);
      assertThat(leadership.term()).isEqualTo(stored(ELECTION).token());
      await("the listener heard it", () -> heard.elections() == 1);
      assertThat(heard.elected(0).leadership()).isSameAs(leadership);
      assertThat(heard.elected(0).thread()).startsWith("relock-leader-" + ELECTION);
    }
    assertThat(heard.malformed()).isNull();
    assertThat(heard.revocations()).as("closing the leader revokes it").isEqualTo(1);
  }

  /**
   * A wait too long to count in nanoseconds ({@code ChronoUnit.FOREVER}'s, say) is a wait without
   * limit, as a lock's {@code acquire} takes it: not an ArithmeticException.
   */
  @Test
  void awaitLeadership_forAWaitTooLongToCountInNanoseconds_waitsWithoutLimit() throws Exception {
    try (LeaderCandidate c = candidate(client(), new LeaderRecorder())) {
      assertThat(c.awaitLeadership(java.time.temporal.ChronoUnit.FOREVER.getDuration())).isPresent();
      assertThat(c.awaitLeadership(Duration.ofSeconds(Long.MAX_VALUE / 1_000_000_000L + 1))).isPresent();
    }
  }

  @Test
  void twoCandidates_oneLeads_theOtherWaitsInRedis() throws Exception {
    LeaderRecorder first = new LeaderRecorder();
    LeaderRecorder second = new LeaderRecorder();
    LeaderCandidate a = candidate(client(), first);
    a.awaitLeadership(PATIENCE).orElseThrow();
    LeaderCandidate b = candidate(client(), second);
    awaitQueued(1);
    assertThat(b.isLeader()).isFalse();
    assertThat(b.leadership()).isEmpty();
    assertThat(b.awaitLeadership(Duration.ZERO)).isEmpty();
    assertThat(second.calls()).isEmpty();
    assertThat(holderInRedis(ELECTION)).isNotNull();
    a.close();
    b.close();
  }

  /**
   * Both leases last ten minutes, so neither a renewal nor an expiry can tell the old leader in
   * time: only the forced unlock's notice can. Four rounds, the leadership going back and forth.
   */
  @Test
  void forcedUnlock_revokesTheLeaderAtOnce_andTheNextIsElectedWithAGreaterTerm() throws Exception {
    List<LeaderRecorder> heard = List.of(new LeaderRecorder(), new LeaderRecorder());
    List<LeaderCandidate> candidates = new ArrayList<>();
    for (LeaderRecorder r : heard) {
      candidates.add(candidate(client(x -> x.defaultLease(ForcedUnlocks.LONG_LEASE)), r));
      candidates.get(0).awaitLeadership(PATIENCE).orElseThrow();
    }
    awaitQueued(1);
    io.relock.DistributedLock operators = client().lock(ELECTION);
    assertThat(operators.isLocked()).isTrue(); // the operator's client is connected
    List<Long> delays = new ArrayList<>();
    for (int round = 0; round < 4; round++) {
      int old = round % 2;
      LeaderRecorder was = heard.get(old);
      LeaderRecorder next = heard.get(1 - old);
      Leadership deposed = candidates.get(old).leadership().orElseThrow();
      long forcedAt = System.nanoTime();
      assertThat(operators.forceUnlock()).isTrue();
      int revocation = round / 2;
      await("the old leader is revoked", () -> was.revocations() == revocation + 1);
      delays.add(TimeUnit.NANOSECONDS.toMillis(was.revoked(revocation).atNanos() - forcedAt));
      assertThat(deposed.isValid()).isFalse();
      awaitLeading(candidates.get(1 - old), next, revocation + (old == 0 ? 1 : 2));
      assertThat(next.lastTerm()).isGreaterThan(deposed.term());
      awaitQueued(1); // the old leader waits again
    }
    System.out.println("forced unlock (call included) to the old leader's onRevoked, 4 rounds: " + delays + " ms");
    for (LeaderRecorder r : heard) {
      assertThat(r.malformed()).isNull();
    }
    for (LeaderCandidate c : candidates) {
      c.close();
    }
  }

  /**
   * The leader's connection goes silent, so its renewals fail: it must be revoked by its lease's
   * local deadline, which comes before Redis lets the lock go (by the 500 ms drift allowance set
   * here), and so before the other candidate is elected.
   */
  @Test
  void leaseNotRenewed_revokesTheLeaderBeforeRedisLetsTheLockGo() throws Exception {
    try (TcpProxy proxy = TcpProxy.start(redis.host(), redis.port())) {
      LeaderRecorder first = new LeaderRecorder();
      LeaderRecorder second = new LeaderRecorder();
      Relock cutOff = client(proxy.uri(), DRIVER_SETTINGS, x -> x.defaultLease(Duration.ofSeconds(2))
          .clockDrift(Duration.ofMillis(500)).commandTimeout(Duration.ofMillis(500)));
      LeaderCandidate a = candidate(cutOff, first);
      Leadership old = a.awaitLeadership(PATIENCE).orElseThrow();
      LeaderCandidate b = candidate(client(), second);
      awaitQueued(1);

      long silentAt = System.nanoTime();
      proxy.blackhole();
      await("the old leader is revoked", () -> first.revocations() == 1);
      awaitLeading(b, second, 1);
      long revokedAt = first.revoked(0).atNanos();
      long electedAt = second.elected(0).atNanos();
      System.out.println("network silent to the old leader's onRevoked: "
          + TimeUnit.NANOSECONDS.toMillis(revokedAt - silentAt) + " ms; to the next leader's onElected: "
          + TimeUnit.NANOSECONDS.toMillis(electedAt - silentAt) + " ms");
      assertThat(revokedAt).as("the old leader's onRevoked came before the next leader's onElected")
          .isLessThan(electedAt);
      assertThat(old.isValid()).isFalse();
      assertThat(second.elected(0).leadership().term()).isGreaterThan(old.term());
      proxy.cut(); // the silenced connections are out of step: reset them, and let the client reconnect
      proxy.restore();
      a.close();
      b.close();
    }
  }

  @Test
  void yield_handsLeadershipToTheCandidateWaiting_afterTheOldLeadersOnRevoked_andRejoins() throws Exception {
    LeaderRecorder first = new LeaderRecorder();
    LeaderRecorder second = new LeaderRecorder();
    LeaderCandidate a = candidate(client(x -> x.recheckInterval(NO_RECHECK)), first);
    Leadership old = a.awaitLeadership(PATIENCE).orElseThrow();
    String leader = holderInRedis(ELECTION);
    AtomicReference<String> holderWhenRevoked = holderWhenRevoked(a);
    LeaderCandidate b = candidate(client(x -> x.recheckInterval(NO_RECHECK)), second);
    awaitQueued(1);

    assertThat(a.yieldLeadership()).isTrue();
    assertThat(first.revocations()).as("onRevoked ran before yieldLeadership returned").isEqualTo(1);
    assertThat(holderWhenRevoked.get()).as("the lock's holder in Redis during onRevoked").isEqualTo(leader);
    assertThat(old.isValid()).isFalse();
    awaitLeading(b, second, 1);
    assertThat(first.revoked(0).atNanos()).isLessThan(second.elected(0).atNanos());
    assertThat(second.elected(0).leadership().term()).isGreaterThan(old.term());
    awaitQueued(1); // the yielder waits again, behind
    assertThat(a.isLeader()).isFalse();
    assertThat(b.yieldLeadership()).isTrue();
    awaitLeading(a, first, 2);
    assertThat(first.elected(1).leadership().term()).isGreaterThan(second.elected(0).leadership().term());
    assertThat(b.yieldLeadership()).as("a candidate that does not lead has nothing to yield").isFalse();
    assertThat(first.malformed()).isNull();
    assertThat(second.malformed()).isNull();
    a.close();
    b.close();
  }

  @Test
  void yield_withNoOtherCandidate_isElectedAgainWithAGreaterTerm() throws Exception {
    LeaderRecorder heard = new LeaderRecorder();
    try (LeaderCandidate c = candidate(client(), heard)) {
      Leadership first = c.awaitLeadership(PATIENCE).orElseThrow();
      assertThat(c.yieldLeadership()).isTrue();
      Leadership second = c.awaitLeadership(PATIENCE).orElseThrow();
      assertThat(second.term()).isGreaterThan(first.term());
      await("heard both", () -> heard.elections() == 2);
      assertThat(heard.malformed()).isNull();
    }
  }

  @Test
  void close_revokesThenReleasesAtOnce_handingLeadershipOn_andWithdrawsAWaitingCandidate() throws Exception {
    LeaderRecorder first = new LeaderRecorder();
    LeaderRecorder second = new LeaderRecorder();
    LeaderRecorder third = new LeaderRecorder();
    LeaderCandidate a = candidate(client(x -> x.recheckInterval(NO_RECHECK)), first);
    Leadership old = a.awaitLeadership(PATIENCE).orElseThrow();
    String leader = holderInRedis(ELECTION);
    AtomicReference<String> holderWhenRevoked = holderWhenRevoked(a);
    LeaderCandidate b = candidate(client(x -> x.recheckInterval(NO_RECHECK)), second);
    awaitQueued(1);
    LeaderCandidate c = candidate(client(x -> x.recheckInterval(NO_RECHECK)), third);
    awaitQueued(2);

    c.close(); // waiting: withdrawn
    awaitQueued(1);
    a.close(); // leading: revoked, then released, handed to b
    assertThat(first.revocations()).as("onRevoked ran before close returned").isEqualTo(1);
    assertThat(holderWhenRevoked.get()).as("the lock's holder in Redis during onRevoked").isEqualTo(leader);
    assertThat(old.isValid()).isFalse();
    assertThat(a.isLeader()).isFalse();
    awaitLeading(b, second, 1);
    assertThat(first.revoked(0).atNanos()).isLessThan(second.elected(0).atNanos());
    assertThat(third.calls()).isEmpty();

    assertThatThrownBy(a::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("'" + ELECTION + "'");
    assertThatThrownBy(() -> a.awaitLeadership(PATIENCE)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    assertThat(a.yieldLeadership()).isFalse();
    a.close(); // again: nothing

    b.close();
    assertThat(holderInRedis(ELECTION)).as("the lock is free as soon as close returns").isNull();
    assertNoWaiters(ELECTION);
  }

  @Test
  void closingTheClient_revokesItsLeaderFirst() throws Exception {
    LeaderRecorder heard = new LeaderRecorder();
    Relock relock = client();
    LeaderCandidate c = candidate(relock, heard);
    c.awaitLeadership(PATIENCE).orElseThrow();
    String leader = holderInRedis(ELECTION);
    AtomicReference<String> holderWhenRevoked = holderWhenRevoked(c);
    relock.close();
    assertThat(heard.revocations()).isEqualTo(1);
    assertThat(holderWhenRevoked.get()).as("the lock's holder in Redis during onRevoked").isEqualTo(leader);
    assertThat(heard.malformed()).isNull();
    assertThat(c.isLeader()).isFalse();
    assertThat(holderInRedis(ELECTION)).isNull();
  }

  /**
   * Six candidates in three clients; a leader is asked to yield over and over. Each leader's term
   * is written to a store that refuses a term lower than the highest it has seen, and no two
   * leaders may be between onElected and onRevoked at once.
   */
  /**
   * A candidate started while its client closes (here: while the client's leader is being closed,
   * its onRevoked still running) is closed by the client too, as every candidate of it is: it never
   * hears onElected without onRevoked, nor leads past the client's close. Before, the client closed
   * only the candidates started before its close began; a later one could be handed the lock by the
   * leader's release, hear onElected, and then lose the lock to the client's close unheard.
   */
  @Test
  void aCandidateStartedWhileItsClientCloses_isClosedWithIt_neverElectedUnrevoked() throws Exception {
    Relock relock = client();
    LeaderCandidate a = candidate(relock, new LeaderRecorder());
    a.awaitLeadership(PATIENCE).orElseThrow();
    java.util.concurrent.CountDownLatch revoking = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch goOn = new java.util.concurrent.CountDownLatch(1);
    a.addListener(new LeaderListener() {
      @Override
      public void onRevoked(Leadership leadership) {
        revoking.countDown();
        try {
          goOn.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    });
    java.util.concurrent.CompletableFuture<Void> closing =
        java.util.concurrent.CompletableFuture.runAsync(relock::close, r -> new Thread(r, "closer").start());
    assertThat(revoking.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).as("the leader's onRevoked runs").isTrue();
    LeaderRecorder late = new LeaderRecorder();
    LeaderCandidate b = relock.leader(ELECTION);
    b.addListener(late);
    Throwable refused = org.assertj.core.api.Assertions.catchThrowable(b::start);
    if (refused == null) {
      // Queued behind the leader's hold in the client: the leader's release will hand it the lock.
      await("the late candidate waits for the lock", () -> io.relock.internal.TestAccess.localWaiters(relock,
          lockKey(ELECTION), PATIENCE) == 1 || late.elections() > 0);
    } else {
      assertThat(refused).as("the start refused").isInstanceOf(io.relock.RelockException.class)
          .hasMessageContaining("closed").hasMessageContaining("'" + ELECTION + "'");
    }
    goOn.countDown();
    closing.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    if (refused == null) {
      await("the late candidate was elected by the leader's release", () -> late.elections() == 1);
    }
    await("the late candidate heard as many revocations as elections",
        () -> late.revocations() == late.elections());
    assertThat(late.malformed()).isNull();
    assertThat(b.isLeader()).isFalse();
    assertThat(holderInRedis(ELECTION)).isNull();
  }

  @Test
  void manyCandidates_leadOneAtATime_withStrictlyIncreasingTerms() throws Exception {
    AtomicInteger inOffice = new AtomicInteger();
    AtomicInteger overlaps = new AtomicInteger();
    TermStore store = new TermStore();
    List<Long> refused = new ArrayList<>();
    LeaderListener office = new LeaderListener() {
      @Override
      public void onElected(Leadership leadership) {
        if (inOffice.incrementAndGet() != 1) {
          overlaps.incrementAndGet();
        }
        if (!store.save("by " + leadership, leadership.term())) {
          synchronized (refused) {
            refused.add(leadership.term());
          }
        }
      }

      @Override
      public void onRevoked(Leadership leadership) {
        inOffice.decrementAndGet();
      }
    };
    List<LeaderCandidate> candidates = new ArrayList<>();
    List<LeaderRecorder> recorders = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Relock relock = client();
      for (int j = 0; j < 2; j++) {
        LeaderRecorder r = new LeaderRecorder();
        LeaderCandidate c = relock.leader(ELECTION);
        c.addListener(office);
        c.addListener(r);
        c.start();
        candidates.add(c);
        recorders.add(r);
      }
    }
    int terms = 12;
    for (int i = 0; i < terms; i++) {
      AtomicReference<LeaderCandidate> leader = new AtomicReference<>();
      await("a leader, at most one", () -> {
        List<LeaderCandidate> leading = candidates.stream().filter(LeaderCandidate::isLeader).toList();
        assertThat(leading).as("candidates leading at once").hasSizeLessThanOrEqualTo(1);
        leader.set(leading.isEmpty() ? null : leading.get(0));
        return leader.get() != null;
      });
      assertThat(leader.get().yieldLeadership()).isTrue();
    }
    for (LeaderCandidate c : candidates) {
      c.close();
    }
    assertThat(overlaps.get()).as("leaders in office at once").isZero();
    assertThat(refused).as("terms the store refused").isEmpty();
    List<Long> accepted = store.acceptedTerms();
    assertThat(accepted).hasSizeGreaterThanOrEqualTo(terms).isSorted().doesNotHaveDuplicates();
    for (LeaderRecorder r : recorders) {
      assertThat(r.malformed()).isNull();
    }
    assertThat(recorders.stream().filter(r -> r.elections() > 0).count()).as("candidates that led").isGreaterThan(2);
    assertThat(holderInRedis(ELECTION)).isNull();
    assertNoWaiters(ELECTION);
  }

  /**
   * Redis restarts without its data: the lock and its fence are gone. The leader is revoked (its
   * renewal finds the lock gone or taken), a leader is elected again, and every term after the
   * restart is greater than the one before it (tokens follow the server's clock in microseconds).
   */
  @Test
  void redisRestartedWithoutItsData_revokesTheLeader_andTermsKeepIncreasing() throws Exception {
    LeaderRecorder first = new LeaderRecorder();
    LeaderRecorder second = new LeaderRecorder();
    LeaderCandidate a = candidate(client(x -> x.defaultLease(Duration.ofSeconds(3))), first);
    Leadership old = a.awaitLeadership(PATIENCE).orElseThrow();
    LeaderCandidate b = candidate(client(x -> x.defaultLease(Duration.ofSeconds(3))), second);
    awaitQueued(1);

    redis.restart();
    await("the old leader is revoked", () -> first.revocations() == 1);
    await("a leader again", () -> a.isLeader() || b.isLeader());
    for (LeaderRecorder r : List.of(first, second)) {
      for (LeaderRecorder.Call call : r.calls()) {
        if (call.leadership() != old) {
          assertThat(call.leadership().term()).as("a term after the restart").isGreaterThan(old.term());
        }
      }
      assertThat(r.malformed()).isNull();
    }
    a.close();
    b.close();
  }

  @Test
  void aListenerThatThrows_isLogged_andTheElectionGoesOn() throws Exception {
    LeaderRecorder heard = new LeaderRecorder();
    Relock relock = client();
    String logged = stderrOf(() -> {
      try (LeaderCandidate c = relock.leader(ELECTION)) {
        c.addListener(new LeaderListener() {
          @Override
          public void onElected(Leadership leadership) {
            throw new IllegalStateException("boom on election");
          }

          @Override
          public void onRevoked(Leadership leadership) {
            throw new IllegalStateException("boom on revocation");
          }
        });
        c.addListener(heard);
        c.start();
        awaitLeading(c, heard, 1);
        assertThat(c.yieldLeadership()).isTrue();
        awaitLeading(c, heard, 2);
      }
    });
    assertThat(heard.malformed()).isNull();
    assertThat(heard.calls()).hasSize(4);
    assertThat(logged).contains("boom on election").contains("boom on revocation").contains("threw; ignored");
  }

  @Test
  void aListenerAddedWhileLeading_hearsOnElectedFirst() throws Exception {
    LeaderRecorder late = new LeaderRecorder();
    LeaderRecorder gone = new LeaderRecorder();
    try (LeaderCandidate c = client().leader(ELECTION)) {
      c.start();
      Leadership now = c.awaitLeadership(PATIENCE).orElseThrow();
      c.addListener(late);
      await("the late listener hears the leadership", () -> late.elections() == 1);
      assertThat(late.elected(0).leadership()).isSameAs(now);
      c.removeListener(late);
      c.addListener(new LeaderListener() {
        @Override
        public void onRevoked(Leadership leadership) {
          c.addListener(gone); // on the candidate's thread, so its catching up comes after the removal
          c.removeListener(gone);
        }
      });
      assertThat(c.yieldLeadership()).isTrue();
      c.awaitLeadership(PATIENCE).orElseThrow();
      assertThat(c.yieldLeadership()).isTrue();
      c.awaitLeadership(PATIENCE).orElseThrow();
    }
    assertThat(late.calls()).as("nothing after it was removed").hasSize(1);
    assertThat(gone.calls()).as("a listener removed as soon as it was added").isEmpty();
  }

  @Test
  void aListenerMayYieldFromOnElected() throws Exception {
    LeaderRecorder heard = new LeaderRecorder();
    AtomicInteger yields = new AtomicInteger();
    try (LeaderCandidate c = client().leader(ELECTION)) {
      c.addListener(new LeaderListener() {
        @Override
        public void onElected(Leadership leadership) {
          if (yields.incrementAndGet() == 1) {
            assertThat(c.yieldLeadership()).isTrue();
          }
        }
      });
      c.addListener(heard);
      c.start();
      awaitLeading(c, heard, 1);
      assertThat(yields.get()).isEqualTo(2);
    }
    assertThat(heard.malformed()).as("the yielded term never reached the second listener").isNull();
    assertThat(heard.calls()).hasSize(2);
  }

  @Test
  void badInput_failsNamingTheValue() throws Exception {
    Relock relock = client();
    assertThatThrownBy(() -> relock.leader(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> relock.leader(" ")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("' '");
    try (LeaderCandidate c = relock.leader(ELECTION)) {
      assertThatThrownBy(() -> c.addListener(null)).isInstanceOf(NullPointerException.class);
      assertThatThrownBy(() -> c.awaitLeadership(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("PT-1S");
      c.start();
      assertThatThrownBy(c::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("already started");
    }
  }
}

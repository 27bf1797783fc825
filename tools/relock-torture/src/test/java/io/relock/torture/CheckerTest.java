package io.relock.torture;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The checker on hand-written histories: each violation is found, and a clean history passes. */
class CheckerTest {
  private static final String A = "torture-a";
  private static final String B = "torture-b";

  /** Two workers taking turns on two locks, as a healthy run looks. */
  private static HistoryBuilder clean() {
    return new HistoryBuilder()
        .section("w1/0/1", A, 100, 0, 50)
        .section("w2/0/1", A, 101, 60, 120)
        .section("w1/1/1", B, 200, 10, 40)
        .section("w1/0/2", A, 102, 130, 200)
        .section("w2/1/1", B, 201, 45, 90);
  }

  @Test
  void cleanHistory_passesEveryCheck() {
    RunResult r = clean().check(Fault.NONE);

    assertThat(r.failures()).isEmpty();
    assertThat(r.holds()).isEqualTo(5);
    assertThat(r.overlaps().pairs()).isZero();
    assertThat(r.fencing().violations()).isZero();
    assertThat(r.losses().lost()).isZero();
    assertThat(r.updates().accepted()).isEqualTo(5);
    assertThat(r.updates().acknowledged()).isEqualTo(5);
    assertThat(r.updates().lost()).isZero();
  }

  @Nested
  class Overlaps {
    private HistoryBuilder twoHolders() {
      // w1 is granted A, and w2 is granted A too before w1 calls close().
      return new HistoryBuilder()
          .acquired("w1/0/1", A, 100, 0)
          .acquired("w2/0/1", A, 101, 2000)
          .release("w2/0/1", A, 101, 2100, true, Event.RELEASED)
          .lostNotice("w1/0/1", A, 100, 1600)
          .release("w1/0/1", A, 100, 2500, false, Event.RELEASE_LOST);
    }

    @Test
    void overlap_withoutFaults_failsTheRun() {
      RunResult r = twoHolders().check(Fault.NONE);

      assertThat(r.overlaps().pairs()).isEqualTo(1);
      assertThat(r.failures()).anyMatch(f -> f.startsWith("(a)"));
      assertThat(r.overlaps().examples()).singleElement().asString().contains("w1/0/1").contains("w2/0/1");
    }

    @Test
    void overlap_explainedByAFault_isCountedButExpected() {
      RunResult r = twoHolders().fault("pause-holder", "w1", 100, 1900).check(Fault.PAUSE_HOLDER);

      assertThat(r.overlaps().pairs()).isEqualTo(1);
      assertThat(r.overlaps().unexplained()).isZero();
      assertThat(r.failures()).isEmpty();
    }

    @Test
    void clusterPrimaryKill_explainsOverlapsOnlyOnTheLocksOfItsSlots() {
      RunResult onItsSlot = twoHolders().fault("kill-primary", "other-lock," + A, 100, 1900).check(Fault.KILL_PRIMARY);
      RunResult elsewhere = twoHolders().fault("kill-primary", "other-lock", 100, 1900).check(Fault.KILL_PRIMARY);

      assertThat(onItsSlot.overlaps().unexplained()).isZero();
      assertThat(onItsSlot.failures()).isEmpty();
      assertThat(elsewhere.overlaps().unexplained()).isEqualTo(1);
      assertThat(elsewhere.failures()).anyMatch(f -> f.startsWith("(a)"));
    }

    @Test
    void slotMigration_explainsNoOverlap() {
      RunResult r = twoHolders().fault("migrate-slot", A, 100, 1900).check(Fault.MIGRATE_SLOT);

      assertThat(r.overlaps().unexplained()).isEqualTo(1);
      assertThat(r.failures()).anyMatch(f -> f.startsWith("(a)"));
    }

    @Test
    void overlap_thatNoFaultExplains_failsAnyRun() {
      // The fault hit the other worker, or came after the second grant: w1 had nothing stopping its renewals.
      RunResult r = twoHolders()
          .fault("pause-holder", "w2", 100, 1900)
          .fault("cut-holder", "w1", 2100, 2200)
          .check(Fault.COMBINED);

      assertThat(r.overlaps().unexplained()).isEqualTo(1);
      assertThat(r.failures()).anyMatch(f -> f.startsWith("(a)") && f.contains("no fault explains"));
      assertThat(r.examples()).first().asString().startsWith("unexplained overlap").contains("w1/0/1");
    }

    @Test
    void overlap_afterAFixedLeaseRanOut_isExpected() {
      RunResult r = new HistoryBuilder()
          .acquired("w1/0/1", A, 100, 0, 1, true)
          .acquired("w2/0/1", A, 101, 1600)
          .release("w2/0/1", A, 101, 1700, true, Event.RELEASED)
          .lostNotice("w1/0/1", A, 100, 1500)
          .release("w1/0/1", A, 100, 1800, false, Event.RELEASE_LOST)
          .check(Fault.PAUSE_HOLDER);

      assertThat(r.overlaps().pairs()).isEqualTo(1);
      assertThat(r.overlaps().unexplained()).isZero();
    }

    @Test
    void holdEndsWhenCloseIsCalled_soAHandoffIsNoOverlap() {
      RunResult r = new HistoryBuilder()
          .acquired("w1/0/1", A, 100, 0)
          .release("w1/0/1", A, 100, 50, true, Event.RELEASED)
          .acquired("w2/0/1", A, 101, 40, 51, false)
          .release("w2/0/1", A, 101, 60, true, Event.RELEASED)
          .check(Fault.NONE);

      assertThat(r.overlaps().pairs()).isZero();
    }

    @Test
    void killedHolder_holdsUntilTheKill() {
      RunResult r = new HistoryBuilder()
          .acquired("w1/0/1", A, 100, 0)
          .killed("w1", A, 500)
          .acquired("w2/0/1", A, 101, 400)
          .release("w2/0/1", A, 101, 450, true, Event.RELEASED)
          .check(Fault.KILL_HOLDER);

      assertThat(r.overlaps().pairs()).isEqualTo(1);
      assertThat(r.losses().lost()).as("nobody is left to tell a killed holder").isZero();
    }
  }

  @Nested
  class Fencing {
    @Test
    void tokenInversion_isAViolation() {
      // w2 asked after w1 had been granted, yet got a smaller token.
      RunResult r = new HistoryBuilder()
          .section("w1/0/1", A, 100, 0, 50)
          .section("w2/0/1", A, 99, 60, 100)
          .check(Fault.RESTART_REDIS);

      assertThat(r.fencing().tokenInversions()).isEqualTo(1);
      assertThat(r.failures()).anyMatch(f -> f.startsWith("(b)"));
    }

    @Test
    void concurrentRequests_mayBeGrantedInEitherOrder() {
      // w2 asked before w1 was granted: Redis may order them either way.
      RunResult r = new HistoryBuilder()
          .acquired("w2/0/1", A, 99, 0, 60, false)
          .acquired("w1/0/1", A, 100, 5, 10, false)
          .release("w1/0/1", A, 100, 50, true, Event.RELEASED)
          .release("w2/0/1", A, 99, 70, true, Event.RELEASED)
          .check(Fault.NONE);

      assertThat(r.fencing().tokenInversions()).isZero();
    }

    @Test
    void staleWriteAccepted_isAViolation() {
      // w1 (token 100) writes after w2 (token 101) had already read: a correct store refuses it.
      HistoryBuilder h = new HistoryBuilder()
          .acquired("w1/0/1", A, 100, 0)
          .read("w1/0/1", A, 100, 1, "ok", 0)
          .acquired("w2/0/1", A, 101, 2000)
          .read("w2/0/1", A, 101, 2001, "ok", 0)
          .write("w2/0/1", A, 101, 2010, 2011, "accepted", 0)
          .storeAccepts(A, 101, 0, "w2/0/1")
          .release("w2/0/1", A, 101, 2012, true, Event.RELEASED)
          .write("w1/0/1", A, 100, 2500, 2501, "accepted", 1)
          .storeAccepts(A, 100, 1, "w1/0/1")
          .release("w1/0/1", A, 100, 2502, false, Event.RELEASE_LOST)
          .lostNotice("w1/0/1", A, 100, 1600);

      RunResult r = h.check(Fault.PAUSE_HOLDER);

      assertThat(r.fencing().staleAccepted()).isEqualTo(1);
      assertThat(r.fencing().logDisorder()).as("the log has token 100 after 101").isEqualTo(1);
      assertThat(r.failures()).anyMatch(f -> f.startsWith("(b)"));
    }

    @Test
    void staleWriteRefused_isFencingAtWork() {
      RunResult r = new HistoryBuilder()
          .fault("pause-holder", "w1", 100, 1900)
          .acquired("w1/0/1", A, 100, 0)
          .read("w1/0/1", A, 100, 1, "ok", 0)
          .acquired("w2/0/1", A, 101, 2000)
          .read("w2/0/1", A, 101, 2001, "ok", 0)
          .write("w2/0/1", A, 101, 2010, 2011, "accepted", 0)
          .storeAccepts(A, 101, 0, "w2/0/1")
          .release("w2/0/1", A, 101, 2012, true, Event.RELEASED)
          .write("w1/0/1", A, 100, 2500, 2501, "refused", 0)
          .lostNotice("w1/0/1", A, 100, 1600)
          .release("w1/0/1", A, 100, 2502, false, Event.RELEASE_LOST)
          .check(Fault.PAUSE_HOLDER);

      assertThat(r.fencing().violations()).isZero();
      assertThat(r.fencing().staleRefused()).isEqualTo(1);
      assertThat(r.failures()).isEmpty();
    }
  }

  @Nested
  class Losses {
    /** w1 is paused past its lease (the fault window), w2 takes the lock meanwhile. */
    private HistoryBuilder pausedHolder() {
      return new HistoryBuilder()
          .fault("pause-holder", "w1", 100, 2600)
          .acquired("w1/0/1", A, 100, 0)
          .acquired("w2/0/1", A, 101, 1700)
          .release("w2/0/1", A, 101, 1800, true, Event.RELEASED);
    }

    @Test
    void toldByEverySignal_isReported() {
      RunResult r = pausedHolder()
          .lostNotice("w1/0/1", A, 100, 2601)
          .release("w1/0/1", A, 100, 2700, false, Event.RELEASE_LOST)
          .check(Fault.PAUSE_HOLDER);

      assertThat(r.losses().lost()).isEqualTo(1);
      assertThat(r.losses().noticed()).isEqualTo(1);
      assertThat(r.losses().invalidBeforeClose()).isEqualTo(1);
      assertThat(r.losses().lostAtClose()).isEqualTo(1);
      assertThat(r.losses().unreported()).isZero();
      assertThat(r.failures()).isEmpty();
    }

    @Test
    void closeReturningNormally_isUnreported() {
      RunResult r = pausedHolder()
          .release("w1/0/1", A, 100, 2700, true, Event.RELEASED)
          .check(Fault.PAUSE_HOLDER);

      assertThat(r.losses().unreported()).isEqualTo(1);
      assertThat(r.failures()).anyMatch(f -> f.startsWith("(c)"));
    }

    @Test
    void closeFailingWithoutLockLost_isUnreported() {
      RunResult r = pausedHolder()
          .release("w1/0/1", A, 100, 2700, true, Event.RELEASE_FAILED)
          .check(Fault.PAUSE_HOLDER);

      assertThat(r.losses().unreported()).isEqualTo(1);
    }

    @Test
    void invalidByItsOwnClockButListenerNeverRan_isUnreported() {
      RunResult r = pausedHolder()
          .release("w1/0/1", A, 100, 2700, false, Event.RELEASE_LOST)
          .check(Fault.PAUSE_HOLDER);

      assertThat(r.losses().unreported()).isEqualTo(1);
      assertThat(r.losses().examples()).singleElement().asString().contains("onLost never ran");
    }

    @Test
    void lossFoundOnlyAtClose_needsNoListener() {
      // Redis lost the lock (w2 got it) while w1's own clock still said valid: close() is the first
      // moment relock can know, and throwing there is the documented way of telling.
      RunResult r = new HistoryBuilder()
          .fault("restart-redis", "redis", 20, 30)
          .acquired("w1/0/1", A, 100, 0)
          .acquired("w2/0/1", A, 101, 50)
          .release("w2/0/1", A, 101, 60, true, Event.RELEASED)
          .release("w1/0/1", A, 100, 80, true, Event.RELEASE_LOST)
          .check(Fault.RESTART_REDIS);

      assertThat(r.losses().lost()).isEqualTo(1);
      assertThat(r.losses().unreported()).isZero();
      assertThat(r.failures()).isEmpty();
    }

    @Test
    void faultLongerThanTheLease_provesTheLossWithoutAnOverlap() {
      RunResult r = new HistoryBuilder()
          .fault("cut-holder", "w1", 100, 2200)
          .acquired("w1/0/1", A, 100, 0)
          .release("w1/0/1", A, 100, 2500, true, Event.RELEASED)
          .check(Fault.CUT_HOLDER);

      assertThat(r.losses().lost()).isEqualTo(1);
      assertThat(r.losses().unreported()).isEqualTo(1);
    }

    @Test
    void faultShorterThanTheLease_provesNothing() {
      RunResult r = new HistoryBuilder()
          .fault("cut-holder", "w1", 100, 1200)
          .acquired("w1/0/1", A, 100, 0)
          .release("w1/0/1", A, 100, 2500, true, Event.RELEASED)
          .check(Fault.CUT_HOLDER);

      assertThat(r.losses().lost()).isZero();
    }

    @Test
    void fixedLeaseOutlived_isLost() {
      RunResult r = new HistoryBuilder()
          .acquired("w1/0/1", A, 100, 0, 1, true)
          .release("w1/0/1", A, 100, 2500, false, Event.RELEASE_LOST)
          .lostNotice("w1/0/1", A, 100, 1500)
          .check(Fault.NONE);

      assertThat(r.losses().lost()).isEqualTo(1);
      assertThat(r.losses().unreported()).isZero();
    }
  }

  @Nested
  class StuckLocks {
    private HistoryBuilder killedHolder() {
      return new HistoryBuilder()
          .acquired("w1/0/1", A, 100, 0)
          .killed("w1", A, 100);
    }

    @Test
    void lockGrantedWithinLeasePlusBound_isFine() {
      RunResult r = killedHolder()
          .acquired("w2/0/1", A, 101, 1700)
          .release("w2/0/1", A, 101, 1750, true, Event.RELEASED)
          .check(Fault.KILL_HOLDER);

      assertThat(r.stuck().measured()).isEqualTo(1);
      assertThat(r.stuck().maxMillis()).isEqualTo(1600);
      assertThat(r.stuck().stuck()).isZero();
    }

    @Test
    void probeCountsAsTheNextHolder() {
      RunResult r = killedHolder().probe(A, 1900, "acquired").check(Fault.KILL_HOLDER);

      assertThat(r.stuck().maxMillis()).isEqualTo(1800);
      assertThat(r.stuck().stuck()).isZero();
    }

    @Test
    void lockGrantedOnlyAfterTheLimit_isStuck() {
      // limit: lease 1500 ms + 1 s + recheck interval 1 s = 3500 ms after the kill
      RunResult r = killedHolder()
          .acquired("w2/0/1", A, 101, 3700)
          .release("w2/0/1", A, 101, 3750, true, Event.RELEASED)
          .check(Fault.KILL_HOLDER);

      assertThat(r.stuck().stuck()).isEqualTo(1);
      assertThat(r.failures()).anyMatch(f -> f.startsWith("(d)"));
    }

    @Test
    void lockNeverGrantedAgain_isStuck() {
      RunResult r = killedHolder().probe(A, 7000, "timeout").check(Fault.KILL_HOLDER);

      assertThat(r.stuck().stuck()).isEqualTo(1);
      assertThat(r.stuck().examples()).singleElement().asString().contains("never granted again");
    }

    @Test
    void walkAway_lockPassedOnAfterTheLease_isFine() {
      RunResult r = new HistoryBuilder()
          .acquired("w1/0/1", A, 100, 0, 1, true)
          .event(50, "w1", Event.ABANDONED, A, "w1/0/1", null)
          .acquired("w2/0/1", A, 101, 60, 1502, false)
          .release("w2/0/1", A, 101, 1550, true, Event.RELEASED)
          .check(Fault.ABANDON_HOLDER);

      assertThat(r.stuck().measured()).isEqualTo(1);
      assertThat(r.stuck().maxMillis()).isEqualTo(1452);
      assertThat(r.stuck().stuck()).isZero();
      assertThat(r.overlaps().pairs()).as("the walked-away holder acts no more").isZero();
    }

    @Test
    void walkAway_waiterStarvedPastTheLimit_isStuck() {
      // w2 asked at 60 ms and timed out at 3060 ms: the lease was surely over at 1550 ms, and the
      // bound (2000 ms) passed without a grant.
      RunResult r = new HistoryBuilder()
          .acquired("w1/0/1", A, 100, 0, 1, true)
          .event(50, "w1", Event.ABANDONED, A, "w1/0/1", null)
          .event(60, "w2", Event.ACQUIRE_SENT, A, "w2/0/1", null)
          .event(4000, "w2", Event.ACQUIRE_TIMEOUT, A, "w2/0/1", null)
          .check(Fault.ABANDON_HOLDER);

      assertThat(r.stuck().stuck()).isEqualTo(1);
      assertThat(r.stuck().examples()).singleElement().asString().contains("walked away").contains("w2/0/1");
    }

    @Test
    void walkAway_nobodyWantedTheLock_isNotMeasured() {
      RunResult r = new HistoryBuilder()
          .acquired("w1/0/1", A, 100, 0, 1, true)
          .event(50, "w1", Event.ABANDONED, A, "w1/0/1", null)
          .acquired("w2/0/1", A, 101, 9000, 9001, false)
          .release("w2/0/1", A, 101, 9050, true, Event.RELEASED)
          .check(Fault.ABANDON_HOLDER);

      assertThat(r.stuck().measured()).isZero();
      assertThat(r.stuck().stuck()).isZero();
    }

    @Test
    void theVictimsOwnLaterGrants_doNotCount() {
      // A grant recorded by the killed process (e.g. a reply that arrived as it died) is no availability.
      RunResult r = killedHolder()
          .acquired("w1/1/1", A, 101, 200)
          .probe(A, 4000, "acquired")
          .check(Fault.KILL_HOLDER);

      assertThat(r.stuck().stuck()).isEqualTo(1);
    }
  }

  @Nested
  class LostUpdates {
    @Test
    void twoAcceptedWritesOnTheSameRead_loseOne() {
      // Both read 0 and both writes were accepted (as a write-only fence would): the counter is 1, not 2.
      RunResult r = new HistoryBuilder()
          .acquired("w1/0/1", A, 100, 0)
          .read("w1/0/1", A, 100, 1, "ok", 0)
          .acquired("w2/0/1", A, 101, 2000)
          .read("w2/0/1", A, 101, 2001, "ok", 0)
          .write("w1/0/1", A, 100, 2500, 2501, "accepted", 0)
          .storeAccepts(A, 100, 0, "w1/0/1")
          .write("w2/0/1", A, 101, 2600, 2601, "accepted", 0)
          .storeAccepts(A, 101, 0, "w2/0/1")
          .release("w1/0/1", A, 100, 2502, false, Event.RELEASE_LOST)
          .lostNotice("w1/0/1", A, 100, 1600)
          .release("w2/0/1", A, 101, 2602, true, Event.RELEASED)
          .check(Fault.PAUSE_HOLDER);

      assertThat(r.updates().lost()).isEqualTo(1);
      assertThat(r.updates().examples()).singleElement().asString().contains("w1/0/1");
      assertThat(r.failures()).anyMatch(f -> f.startsWith("(e)"));
    }

    @Test
    void acknowledgedWriteMissingFromTheStore_isLost() {
      RunResult r = clean()
          .acquired("w2/0/9", B, 300, 300)
          .read("w2/0/9", B, 300, 301, "ok", 2)
          .write("w2/0/9", B, 300, 310, 311, "accepted", 2)
          .release("w2/0/9", B, 300, 312, true, Event.RELEASED)
          .check(Fault.NONE);

      assertThat(r.updates().lost()).isEqualTo(1);
      assertThat(r.updates().examples()).singleElement().asString().contains("no record");
    }

    @Test
    void controlCounters_areReportedButNeverFail() {
      RunResult r = clean().controls(A, 3, 1).check(Fault.PAUSE_HOLDER);

      assertThat(r.updates().writeOnlyLost()).isEqualTo(2);
      assertThat(r.updates().unfencedLost()).isEqualTo(2);
      assertThat(r.failures()).isEmpty();
    }
  }

  @Nested
  class Harness {
    @Test
    void unexpectedException_failsTheRun() {
      RunResult r = clean().event(300, "w1", Event.UNEXPECTED, A, "w1/0/3",
          HistoryWriter.fields("error", "java.lang.IndexOutOfBoundsException")).check(Fault.NONE);

      assertThat(r.failures()).anyMatch(f -> f.contains("IndexOutOfBoundsException"));
    }

    @Test
    void faultRunWithoutFaults_testedNothing() {
      RunResult r = Checker.check("test", Fault.PAUSE_HOLDER, java.util.List.of(), clean().history(),
          clean().store(), TortureSettings.shortRun());

      assertThat(r.failures()).anyMatch(f -> f.contains("injected no fault"));
    }
  }

  /** Sentinel topology: holds erased by a failover hole, and replicaAcks. */
  @Nested
  class Failovers {
    /**
     * Replication cut at 1000, w1 granted A at 1500 (after the cut), the primary killed at 2000 and
     * the replica promoted at 5000; w2 is granted A on the new primary at 5100.
     */
    private HistoryBuilder erased() {
      return new HistoryBuilder()
          .failover(1000, 2000, 5000)
          .acquired("w1/0/1", A, 100, 1499, 1500, false)
          .read("w1/0/1", A, 100, 1501, "ok", 0)
          .acquired("w2/0/1", A, 200, 5050, 5100, false)
          .read("w2/0/1", A, 200, 5101, "ok", 0)
          .write("w2/0/1", A, 200, 5110, 5111, "accepted", 0)
          .storeAccepts(A, 200, 0, "w2/0/1")
          .release("w2/0/1", A, 200, 5120, true, Event.RELEASED)
          .write("w1/0/1", A, 100, 6000, 6001, "refused", 0);
    }

    @Test
    void erasedHold_toldAndOverlapped_isExpected() {
      RunResult r = erased()
          .lostNotice("w1/0/1", A, 100, 5080)
          .release("w1/0/1", A, 100, 6002, false, Event.RELEASE_LOST)
          .checkSentinel(Fault.FAILOVER_HOLE, 0);

      assertThat(r.failover().failovers()).isEqualTo(1);
      assertThat(r.failover().holes()).isEqualTo(1);
      assertThat(r.failover().maxFailoverMillis()).isEqualTo(3000);
      assertThat(r.failover().erased()).isEqualTo(1);
      assertThat(r.failover().erasedTold()).isEqualTo(1);
      assertThat(r.failover().erasedOverlapped()).isEqualTo(1);
      assertThat(r.overlaps().pairs()).isEqualTo(1);
      assertThat(r.overlaps().unexplained()).as("the failover explains it").isZero();
      assertThat(r.losses().lost()).isEqualTo(1);
      assertThat(r.losses().unreported()).isZero();
      assertThat(r.fencing().staleRefused()).isEqualTo(1);
      assertThat(r.failures()).isEmpty();
    }

    @Test
    void erasedHold_overlappedButNotTold_isAnUnreportedLoss() {
      RunResult r = erased()
          .release("w1/0/1", A, 100, 6002, true, Event.RELEASED)
          .checkSentinel(Fault.FAILOVER_HOLE, 0);

      assertThat(r.failover().erased()).isEqualTo(1);
      assertThat(r.failover().erasedTold()).isZero();
      assertThat(r.losses().unreported()).isEqualTo(1);
      assertThat(r.failures()).anyMatch(f -> f.startsWith("(c)"));
    }

    @Test
    void erasedHold_closedOnTheNewPrimaryWithoutComplaint_isAnUnreportedLoss() {
      // Nobody else took A, but the lock w1 released was not there: close() should have said so.
      RunResult r = new HistoryBuilder()
          .failover(1000, 2000, 5000)
          .acquired("w1/0/1", A, 100, 1499, 1500, false)
          .release("w1/0/1", A, 100, 5500, true, Event.RELEASED)
          .checkSentinel(Fault.FAILOVER_HOLE, 0);

      assertThat(r.overlaps().pairs()).isZero();
      assertThat(r.losses().lost()).isEqualTo(1);
      assertThat(r.losses().unreported()).isEqualTo(1);
      assertThat(r.losses().examples()).singleElement().asString().contains("failover hole erased it");
    }

    @Test
    void erasedHold_closedWhileNoPrimaryAnswered_cannotBeTold() {
      RunResult r = new HistoryBuilder()
          .failover(1000, 2000, 5000)
          .acquired("w1/0/1", A, 100, 1499, 1500, false)
          .release("w1/0/1", A, 100, 3000, true, Event.RELEASE_FAILED)
          .checkSentinel(Fault.FAILOVER_HOLE, 0);

      assertThat(r.failover().erased()).isEqualTo(1);
      assertThat(r.failover().erasedUnreachable()).isEqualTo(1);
      assertThat(r.losses().lost()).isZero();
      assertThat(r.failures()).isEmpty();
    }

    @Test
    void holdsThatReachedTheReplicaOrEndedBeforeTheKill_areNotErased() {
      RunResult r = new HistoryBuilder()
          .failover(1000, 2000, 5000)
          .acquired("w1/0/1", A, 100, 900, 950, false)     // asked before the cut
          .release("w1/0/1", A, 100, 6000, true, Event.RELEASED)
          .acquired("w2/0/1", B, 101, 1200, 1250, false)   // after the cut, but done before the kill
          .release("w2/0/1", B, 101, 1400, true, Event.RELEASED)
          .checkSentinel(Fault.FAILOVER_HOLE, 0);

      assertThat(r.failover().erased()).isZero();
      assertThat(r.failover().grantedInHole()).isEqualTo(1);
      assertThat(r.losses().lost()).isZero();
      assertThat(r.failures()).isEmpty();
    }

    @Test
    void withReplicaAcks_aGrantWhileReplicationWasCut_failsTheRun() {
      HistoryBuilder h = new HistoryBuilder()
          .failover(1000, 2000, 5000)
          .acquireFailed("w1/0/1", A, 1100, 1700)
          .acquired("w2/0/1", B, 101, 1200, 1250, false)
          .release("w2/0/1", B, 101, 1400, true, Event.RELEASED);

      RunResult acks = h.checkSentinel(Fault.FAILOVER_HOLE, 1);
      assertThat(acks.failover().acquireErrors()).as("a failed attempt, not an error").isEqualTo(1);
      assertThat(acks.failover().ackRefusals()).isEqualTo(1);
      assertThat(acks.failover().ackViolations(1)).isEqualTo(1);
      assertThat(acks.failures()).anyMatch(f -> f.startsWith("replicaAcks"));

      RunResult noAcks = h.checkSentinel(Fault.FAILOVER_HOLE, 0);
      assertThat(noAcks.failures()).isEmpty();
    }

    @Test
    void plainFailover_erasesNothingByDefinition_andExplainsOverlaps() {
      RunResult r = new HistoryBuilder()
          .failover(-1, 2000, 5000)
          .acquired("w1/0/1", A, 100, 1800, 1900, false)
          .acquired("w2/0/1", A, 200, 5050, 5100, false)
          .release("w2/0/1", A, 200, 5120, true, Event.RELEASED)
          .lostNotice("w1/0/1", A, 100, 5080)
          .release("w1/0/1", A, 100, 6000, false, Event.RELEASE_LOST)
          .checkSentinel(Fault.FAILOVER, 0);

      assertThat(r.failover().holes()).isZero();
      assertThat(r.failover().erased()).isZero();
      assertThat(r.overlaps().unexplained()).isZero();
      assertThat(r.losses().lost()).isEqualTo(1);
      assertThat(r.failures()).isEmpty();
    }
  }

  /** Redlock topology: faults on one master of three, holds a restart erased, the delayed restart. */
  @Nested
  class Redlock {
    /**
     * w1 holds A with token 100 from 500 on; master m1 is restarted without its data from 1000 to
     * 1100 and erases it; w2 is granted A at 2500; w1's late write is refused.
     */
    private HistoryBuilder erasedThenTaken(boolean delayed) {
      return erasedThenTaken(delayed ? Fault.RESTART_MASTER : Fault.RESTART_MASTER_NODELAY);
    }

    private HistoryBuilder erasedThenTaken(Fault fault) {
      return new HistoryBuilder()
          .acquired("w1/0/1", A, 100, 499, 500, false)
          .read("w1/0/1", A, 100, 501, "ok", 0)
          .eraseOnMaster(fault, "m1", 1000, 1100, A, 100L)
          .acquired("w2/0/1", A, 101, 2000, 2500, false)
          .read("w2/0/1", A, 101, 2501, "ok", 0)
          .write("w2/0/1", A, 101, 2510, 2511, "accepted", 0)
          .storeAccepts(A, 101, 0, "w2/0/1")
          .release("w2/0/1", A, 101, 2520, true, Event.RELEASED)
          .write("w1/0/1", A, 100, 2900, 2901, "refused", 0);
    }

    @Test
    void erasedHold_toldBeforeTheNextHolderCame_isExpected() {
      RunResult r = erasedThenTaken(true)
          .lostNotice("w1/0/1", A, 100, 1600)
          .release("w1/0/1", A, 100, 3000, false, Event.RELEASE_LOST)
          .checkRedlock(Fault.RESTART_MASTER);

      assertThat(r.redlock().restarts()).isEqualTo(1);
      assertThat(r.redlock().erased()).isEqualTo(1);
      assertThat(r.redlock().erasedTold()).isEqualTo(1);
      assertThat(r.redlock().erasedOverlapped()).isEqualTo(1);
      assertThat(r.redlock().overlappedBeforeTold()).isZero();
      assertThat(r.overlaps().pairs()).isEqualTo(1);
      assertThat(r.overlaps().unexplained()).isZero();
      assertThat(r.losses().lost()).isEqualTo(1);
      assertThat(r.losses().unreported()).isZero();
      assertThat(r.fencing().staleRefused()).isEqualTo(1);
      assertThat(r.failures()).isEmpty();
    }

    @Test
    void erasedHold_takenBeforeItsHolderWasTold_failsARunWithTheDelayedRestart() {
      RunResult r = erasedThenTaken(true)
          .lostNotice("w1/0/1", A, 100, 3200)
          .release("w1/0/1", A, 100, 3300, false, Event.RELEASE_LOST)
          .checkRedlock(Fault.RESTART_MASTER);

      assertThat(r.redlock().overlappedBeforeTold()).isEqualTo(1);
      assertThat(r.overlaps().unexplained()).isEqualTo(1);
      assertThat(r.failures()).anyMatch(f -> f.startsWith("(a)"));
      assertThat(r.losses().unreported()).as("told, if late").isZero();
    }

    @Test
    void theSameOverlap_inTheControlWithoutTheDelay_isWhatTheControlShows() {
      RunResult r = erasedThenTaken(false)
          .lostNotice("w1/0/1", A, 100, 3200)
          .release("w1/0/1", A, 100, 3300, false, Event.RELEASE_LOST)
          .checkRedlock(Fault.RESTART_MASTER_NODELAY);

      assertThat(r.redlock().controlRestarts()).isEqualTo(1);
      assertThat(r.redlock().overlappedBeforeTold()).isEqualTo(1);
      assertThat(r.overlaps().unexplained()).isZero();
      assertThat(r.overlaps().examples()).singleElement().asString().contains("no delayed restart");
      assertThat(r.failures()).isEmpty();
    }

    @Test
    void aClockStepThatExpiredAHold_explainsItsOverlap_toldOrNot() {
      RunResult r = erasedThenTaken(Fault.CLOCK_STEP_MASTER)
          .lostNotice("w1/0/1", A, 100, 3200)
          .release("w1/0/1", A, 100, 3300, false, Event.RELEASE_LOST)
          .checkRedlock(Fault.CLOCK_STEP_MASTER);

      assertThat(r.redlock().clockSteps()).isEqualTo(1);
      assertThat(r.redlock().restarts()).isZero();
      assertThat(r.redlock().erased()).isEqualTo(1);
      assertThat(r.redlock().overlappedBeforeTold()).isEqualTo(1);
      assertThat(r.overlaps().unexplained()).isZero();
      assertThat(r.overlaps().examples()).singleElement().asString().contains("the clock step of m1");
      assertThat(r.fencing().staleRefused()).isEqualTo(1);
      assertThat(r.failures()).isEmpty();
    }

    @Test
    void erasedFixedLease_takenAfterItRanOut_isExpected() {
      RunResult r = new HistoryBuilder()
          .acquired("w1/0/1", A, 100, 499, 500, true)
          .restartMaster("m1", 1000, 1100, true, A, 100L)
          .acquired("w2/0/1", A, 101, 1200, 2100, false)
          .release("w2/0/1", A, 101, 2200, true, Event.RELEASED)
          .lostNotice("w1/0/1", A, 100, 2150)
          .release("w1/0/1", A, 100, 2300, false, Event.RELEASE_LOST)
          .checkRedlock(Fault.RESTART_MASTER);

      assertThat(r.redlock().erasedOverlapped()).isEqualTo(1);
      assertThat(r.redlock().overlappedBeforeTold()).as("its lease had run out by its own clock").isZero();
      assertThat(r.overlaps().unexplained()).isZero();
      assertThat(r.failures()).isEmpty();
    }

    @Test
    void erasedHold_closedWithoutComplaint_isAnUnreportedLoss() {
      // Nobody else took A, but the lock w1 released was on one master of three: close() should have said so.
      RunResult r = new HistoryBuilder()
          .acquired("w1/0/1", A, 100, 499, 500, false)
          .restartMaster("m1", 1000, 1100, true, A, 100L)
          .release("w1/0/1", A, 100, 1500, true, Event.RELEASED)
          .checkRedlock(Fault.RESTART_MASTER);

      assertThat(r.losses().lost()).isEqualTo(1);
      assertThat(r.losses().unreported()).isEqualTo(1);
      assertThat(r.losses().examples()).singleElement().asString().contains("restart of m1");
      assertThat(r.failures()).anyMatch(f -> f.startsWith("(c)"));
    }

    @Test
    void erasedHold_closedWhileTheMastersCouldNotBeReached_cannotBeTold() {
      RunResult r = new HistoryBuilder()
          .acquired("w1/0/1", A, 100, 499, 500, false)
          .restartMaster("m1", 1000, 1100, true, A, 100L)
          .release("w1/0/1", A, 100, 1200, true, Event.RELEASE_FAILED)
          .checkRedlock(Fault.RESTART_MASTER);

      assertThat(r.redlock().erased()).isEqualTo(1);
      assertThat(r.redlock().erasedUnreachable()).isEqualTo(1);
      assertThat(r.losses().lost()).isZero();
      assertThat(r.failures()).isEmpty();
    }

    @Test
    void holdsEndedBeforeTheRestart_orWithAnotherToken_areNotErased() {
      RunResult r = new HistoryBuilder()
          .acquired("w1/0/1", A, 100, 499, 500, false)
          .release("w1/0/1", A, 100, 1050, true, Event.RELEASED)   // released while the master restarted
          .acquired("w2/0/1", B, 201, 599, 600, false)
          .release("w2/0/1", B, 201, 1500, true, Event.RELEASED)   // B's erased entry was token 200
          .restartMaster("m1", 1000, 1100, true, A, 100L, B, 200L)
          .checkRedlock(Fault.RESTART_MASTER);

      assertThat(r.redlock().erased()).isZero();
      assertThat(r.losses().lost()).isZero();
      assertThat(r.failures()).isEmpty();
    }

    @Test
    void faultOnOneMaster_explainsAnOverlapOnlyOnceTheLoserWasTold() {
      HistoryBuilder h = new HistoryBuilder()
          .fault(Fault.PARTITION_MASTER.id, "m0", 1000, 3000)
          .acquired("w1/0/1", A, 100, 499, 500, false)
          .acquired("w2/0/1", A, 101, 1500, 2000, false)
          .release("w2/0/1", A, 101, 2100, true, Event.RELEASED);

      RunResult untold = h.release("w1/0/1", A, 100, 2500, true, Event.RELEASE_LOST)
          .checkRedlock(Fault.PARTITION_MASTER);
      assertThat(untold.overlaps().unexplained()).as("Redlock survives one master cut off").isEqualTo(1);

      RunResult told = new HistoryBuilder()
          .fault(Fault.PARTITION_MASTER.id, "m0", 1000, 3000)
          .acquired("w1/0/1", A, 100, 499, 500, false)
          .acquired("w2/0/1", A, 101, 1500, 2000, false)
          .release("w2/0/1", A, 101, 2100, true, Event.RELEASED)
          .lostNotice("w1/0/1", A, 100, 1900)
          .release("w1/0/1", A, 100, 2500, false, Event.RELEASE_LOST)
          .checkRedlock(Fault.PARTITION_MASTER);
      assertThat(told.overlaps().unexplained()).isZero();
      assertThat(told.redlock().partitions()).isEqualTo(1);
      assertThat(told.failures()).isEmpty();
    }
  }

  /** Keys left on the lock servers after every worker stopped. */
  @Nested
  class Leftovers {
    @Test
    void nothingLeft_isFine() {
      RunResult r = clean().checkRedlock(Fault.PAUSE_MASTER);

      assertThat(r.stuck().leftovers()).isZero();
      assertThat(r.stuck().measured()).isZero();
    }

    @Test
    void lockStillHeldByAMajority_isStuck_evenIfItExpiresSoon() {
      RunResult r = clean()
          .leftover(A, "m0", 3, "c1:7", 300, 400)
          .leftover(A, "m2", 3, "c1:7", 300, 450)
          .checkRedlock(Fault.PAUSE_MASTER);

      assertThat(r.stuck().leftovers()).isEqualTo(2);
      assertThat(r.stuck().measured()).isEqualTo(1);
      assertThat(r.stuck().maxMillis()).isEqualTo(450);
      assertThat(r.stuck().stuck()).isEqualTo(1);
      assertThat(r.stuck().examples()).singleElement().asString().contains("held for nobody").contains("[m0, m2] of 3");
      assertThat(r.failures()).anyMatch(f -> f.startsWith("(d)"));
    }

    @Test
    void lockAReleaseInAFailoverHoleLeftBehind_isAnErasedRelease_whileItGoesWithinTheLimit() {
      // Released at 1000, after replication was cut at 900 and before the kill at 1100: the promoted
      // replica still has the lock for token 100. Limit: the Sentinel lease 12 s + 2 s.
      HistoryBuilder h = new HistoryBuilder()
          .acquired("w1/0/1", A, 100, 800)
          .release("w1/0/1", A, 100, 1000, true, Event.RELEASED)
          .failover(900, 1100, 3000);
      RunResult erased = h.leftover(A, "redis", 1, "c1:7", 100, 5000, 7000).checkSentinel(Fault.FAILOVER_HOLE, 0);
      RunResult tooLate = new HistoryBuilder()
          .acquired("w1/0/1", A, 100, 800)
          .release("w1/0/1", A, 100, 1000, true, Event.RELEASED)
          .failover(900, 1100, 3000)
          .leftover(A, "redis", 1, "c1:7", 100, 5000, 11000).checkSentinel(Fault.FAILOVER_HOLE, 0);
      RunResult otherToken = new HistoryBuilder()
          .acquired("w1/0/1", A, 100, 800)
          .release("w1/0/1", A, 100, 1000, true, Event.RELEASED)
          .failover(900, 1100, 3000)
          .leftover(A, "redis", 1, "c1:7", 101, 5000, 7000).checkSentinel(Fault.FAILOVER_HOLE, 0);

      assertThat(erased.stuck().erasedReleases()).isEqualTo(1);
      assertThat(erased.stuck().stuck()).isZero();
      assertThat(erased.examples()).anyMatch(x -> x.startsWith("release erased by the failover hole"));
      assertThat(erased.failures()).isEmpty();
      assertThat(tooLate.stuck().stuck()).as("gone 15 s after the release").isEqualTo(1);
      assertThat(otherToken.stuck().erasedReleases()).isZero();
      assertThat(otherToken.stuck().stuck()).as("a key no erased release explains").isEqualTo(1);
    }

    @Test
    void strayKeyOnAMinority_goneWithinTheLease_isFine() {
      RunResult r = clean().leftover(A, "m1", 3, "c1:7", 300, 1200).checkRedlock(Fault.PAUSE_MASTER);

      assertThat(r.stuck().leftovers()).isEqualTo(1);
      assertThat(r.stuck().maxMillis()).isEqualTo(1200);
      assertThat(r.stuck().stuck()).isZero();
      assertThat(r.failures()).isEmpty();
    }

    @Test
    void strayKeyOnAMinority_stillThereAfterTheLimit_isStuck() {
      // limit: lease 1500 ms + 1 s + recheck interval 1 s
      RunResult late = clean().leftover(A, "m1", 3, "c1:7", 300, 3600).checkRedlock(Fault.PAUSE_MASTER);
      RunResult never = clean().leftover(A, "m1", 3, "c1:7", 300, -1).checkRedlock(Fault.PAUSE_MASTER);

      assertThat(late.stuck().stuck()).isEqualTo(1);
      assertThat(never.stuck().stuck()).isEqualTo(1);
      assertThat(never.stuck().examples()).singleElement().asString().contains("still there");
    }

    @Test
    void singleServer_anyKeyLeftIsHeldForNobody() {
      RunResult r = clean().leftover(A, "redis", 1, "c1:7", 300, 200).check(Fault.PAUSE_HOLDER);

      assertThat(r.stuck().stuck()).isEqualTo(1);
    }

    @Test
    void keysOfAWorkerKilledBecauseItDidNotStop_areLeftToThatFailure() {
      RunResult r = clean()
          .workerStarted("w2", "c2", 0)
          .event(250, "nemesis", Event.KILLED, null, null, java.util.Map.of("target", "w2", "reason", "did not stop"))
          .leftover(A, "m0", 3, "c2:1", 300, 1000)
          .leftover(A, "m1", 3, "c2:1", 300, 1000)
          .checkRedlock(Fault.PAUSE_MASTER);

      assertThat(r.stuck().stuck()).isZero();
      assertThat(r.failures()).anyMatch(f -> f.contains("did not stop"));
    }
  }
}

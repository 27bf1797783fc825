package io.relock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.LeaderCandidate;
import io.relock.Leadership;
import io.relock.Relock;
import io.relock.spi.DriverSettings;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Leader election on Redlock ({@link RedlockTopology}): terms come from the masters' fences, a
 * forced unlock revokes at once, and a yield lets the other candidate lead although Redlock has no
 * queue to hand the lock over by.
 */
public abstract class RedlockLeaderContract extends RelockContract {
  private static final String ELECTION = "election";
  @RegisterExtension
  final RedlockTopology redlock = new RedlockTopology();

  @Override
  protected Relock.Builder builderFor(String uri, DriverSettings settings) {
    return redlock.builder(uri, settings);
  }

  private static LeaderCandidate candidate(Relock relock, LeaderRecorder recorder) {
    LeaderCandidate c = relock.leader(ELECTION);
    c.addListener(recorder);
    c.start();
    return c;
  }

  /** Until the other candidate's attempt was refused, leaving its channel to be told of the release. */
  private void awaitRefused() {
    await("the other candidate waits", () -> redis("EXISTS", lockKey(ELECTION) + ":q").equals(1L));
  }

  @Test
  void yield_letsTheOtherCandidateLead_withAGreaterTerm() throws Exception {
    LeaderRecorder first = new LeaderRecorder();
    LeaderRecorder second = new LeaderRecorder();
    LeaderCandidate a = candidate(client(), first);
    Leadership old = a.awaitLeadership(PATIENCE).orElseThrow();
    LeaderCandidate b = candidate(client(), second);
    awaitRefused();

    assertThat(a.yieldLeadership()).isTrue();
    Leadership next = b.awaitLeadership(PATIENCE).orElseThrow();
    await("the other candidate's listener heard it", () -> second.elections() == 1);
    assertThat(next.term()).isGreaterThan(old.term());
    assertThat(first.revoked(0).atNanos()).isLessThan(second.elected(0).atNanos());
    assertThat(a.isLeader()).isFalse();
    assertThat(first.malformed()).isNull();
    a.close();
    b.close();
  }

  @Test
  void forcedUnlock_revokesTheLeaderAtOnce_andTheNextIsElectedWithAGreaterTerm() throws Exception {
    LeaderRecorder first = new LeaderRecorder();
    LeaderRecorder second = new LeaderRecorder();
    LeaderCandidate a = candidate(client(x -> x.defaultLease(ForcedUnlocks.LONG_LEASE)), first);
    Leadership old = a.awaitLeadership(PATIENCE).orElseThrow();
    LeaderCandidate b = candidate(client(x -> x.defaultLease(ForcedUnlocks.LONG_LEASE)), second);
    awaitRefused();

    io.relock.DistributedLock operators = client().lock(ELECTION);
    assertThat(operators.isLocked()).isTrue(); // the operator's client is connected
    long forcedAt = System.nanoTime();
    assertThat(operators.forceUnlock()).isTrue();
    long returnedAt = System.nanoTime();
    await("the old leader is revoked", () -> first.revocations() == 1);
    System.out.println("Redlock: forced unlock to the old leader's onRevoked: "
        + TimeUnit.NANOSECONDS.toMillis(first.revoked(0).atNanos() - forcedAt) + " ms (the call took "
        + TimeUnit.NANOSECONDS.toMillis(returnedAt - forcedAt) + " ms)");
    await("a leader again", () -> a.isLeader() || b.isLeader());
    long newTerm = (a.isLeader() ? a : b).leadership().map(Leadership::term).orElse(Long.MAX_VALUE);
    assertThat(newTerm).isGreaterThan(old.term());
    assertThat(first.malformed()).isNull();
    assertThat(second.malformed()).isNull();
    a.close();
    b.close();
  }
}

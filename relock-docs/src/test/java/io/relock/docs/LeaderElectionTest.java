package io.relock.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.LeaderCandidate;
import io.relock.LeaderListener;
import io.relock.Leadership;
import io.relock.Relock;
import io.relock.testkit.Await;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The snippet of docs/leader-election.md, run: two candidates, one report writer at a time. */
class LeaderElectionTest {

  /** A store that refuses a write whose term is lower than the highest it has accepted. */
  static final class ReportStore {
    private long highestTerm;
    private final List<Long> accepted = new ArrayList<>();

    synchronized boolean save(String report, long term) {
      if (term < highestTerm) {
        return false; // from a leader that has been deposed
      }
      highestTerm = term;
      accepted.add(term);
      return true;
    }

    synchronized List<Long> acceptedTerms() {
      return new ArrayList<>(accepted);
    }
  }

  // snippet:leader-election
  static LeaderCandidate reportWhileLeading(Relock relock, ScheduledExecutorService timer, ReportStore store) {
    LeaderCandidate candidate = relock.leader("nightly-report");
    candidate.addListener(new LeaderListener() {
      private ScheduledFuture<?> job;

      @Override
      public void onElected(Leadership leadership) {
        // Do the work elsewhere: a listener that blocks delays the candidate's next callback.
        job = timer.scheduleWithFixedDelay(() -> {
          if (leadership.isValid()) {
            store.save("report", leadership.term()); // the store refuses a deposed leader's term
          }
        }, 0, 100, TimeUnit.MILLISECONDS);
      }

      @Override
      public void onRevoked(Leadership leadership) {
        job.cancel(false);
      }
    });
    candidate.start();
    return candidate; // close() leaves the election, and releases the leadership if it holds it
  }
  // end:leader-election

  @Test
  void theGuidesExample_reportsOnlyWhileLeading_andTheStoreRefusesADeposedLeader() throws Exception {
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    try (Relock first = Relock.connect(DocsRedis.uri()); Relock second = Relock.connect(DocsRedis.uri())) {
      ReportStore store = new ReportStore();
      LeaderCandidate a = reportWhileLeading(first, timer, store);
      Await.until("the first leader reports", () -> !store.acceptedTerms().isEmpty());
      long firstTerm = store.acceptedTerms().get(0);
      LeaderCandidate b = reportWhileLeading(second, timer, store);
      LeaderCandidate leader = a.isLeader() ? a : b;
      LeaderCandidate other = leader == a ? b : a;
      leader.close();
      Await.until("the next leader reports", () -> store.acceptedTerms().stream().anyMatch(t -> t > firstTerm));
      assertThat(other.isLeader()).isTrue();
      assertThat(store.save("from the deposed leader", firstTerm)).isFalse();
      other.close();
    } finally {
      timer.shutdownNow();
    }
  }
}

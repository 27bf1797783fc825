package io.relock.contract;

import io.relock.LeaderCandidate;
import io.relock.LeaderListener;
import io.relock.Leadership;
import io.relock.Relock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The example of docs/leader-election.md, compiled here and run by {@link LeaderContract}; the
 * lines between the {@code guide} markers are the page's code, word for word (see LeaderGuideTest).
 */
final class LeaderElectionExample {
  private LeaderElectionExample() {}

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

  // guide:start
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
  // guide:end
}

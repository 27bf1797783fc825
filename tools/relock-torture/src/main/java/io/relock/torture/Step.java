package io.relock.torture;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * One fault the nemesis injects: which, after how long a quiet gap, for how long, and on whom.
 * A run's steps are drawn up front from a seeded {@link Random} ({@link #schedule}), so a seed
 * reproduces the schedule; which process holds a lock when a step fires, and so the exact
 * interleavings, still depend on timing.
 *
 * @param fault a single fault (never NONE or COMBINED)
 * @param gapBefore quiet time before the fault
 * @param length how long the fault lasts (zero for a kill or a restart, which are instants)
 * @param pick chooses the target among the candidates found when the step fires (modulo their number)
 * @param latency the added latency of a DELAY step
 * @param allWorkers whether a DELAY step slows every worker rather than one
 * @param overlay latency added to every worker during the step as well (combined runs), or zero
 */
record Step(Fault fault, Duration gapBefore, Duration length, int pick, Duration latency, boolean allWorkers,
    Duration overlay) {

  /** The steps of a run of {@code run} lasting about {@code runLength}. */
  static List<Step> schedule(Fault run, Duration runLength, TortureSettings settings, Random random) {
    List<Step> steps = new ArrayList<>();
    if (run == Fault.NONE || run == Fault.ABANDON_HOLDER) {
      return steps;  // no nemesis: abandon-holder's workers walk away on their own
    }
    long budget = runLength.toMillis();
    long planned = 0;
    while (planned < budget) {
      Fault f = run == Fault.COMBINED ? Fault.SINGLE.get(random.nextInt(Fault.SINGLE.size())) : run;
      Step s = draw(f, settings, random, run == Fault.COMBINED);
      steps.add(s);
      planned += s.gapBefore.toMillis() + s.length.toMillis() + expectedExtraMillis(f, settings);
    }
    return steps;
  }

  private static Step draw(Fault f, TortureSettings s, Random random, boolean combined) {
    long lease = s.lease().toMillis();
    Duration gap = f.isFailover() || f == Fault.KILL_PRIMARY
        ? Duration.ofMillis(between(random, 1000, 2000))  // let the workers settle on the new primary
        : f == Fault.RESTART_MASTER || f == Fault.RESTART_MASTER_NODELAY || f == Fault.CLOCK_STEP_MASTER
        // past the delayed restart, so that the next step does not find two masters out
        ? s.redlockRestartDelay().plusMillis(between(random, 500, 1500))
        : Duration.ofMillis(between(random, 500, 1500));
    int pick = random.nextInt(1000);
    Duration length = switch (f) {
      // "Past its lease": 0.3 to 1.5 s longer than the lease.
      case PAUSE_HOLDER -> Duration.ofMillis(lease + between(random, 300, 1500));
      // About a lease: sometimes shorter (nothing is lost), sometimes longer.
      case PAUSE_REDIS -> Duration.ofMillis(between(random, lease / 2, lease * 3 / 2 + 500));
      case CUT_HOLDER, BLACKHOLE_HOLDER, BLACKHOLE_RESUME -> Duration.ofMillis(between(random, 300, lease * 2));
      case DELAY -> Duration.ofMillis(between(random, 1000, 3000));
      // How long replication stays cut at most before the primary is killed (less if a hold
      // granted since the cut is at work sooner; see Nemesis).
      case FAILOVER_HOLE -> Duration.ofMillis(between(random, 1500, 2500));
      case PARTITION_MASTER -> Duration.ofMillis(between(random, 1000, 3000));
      // Well past the per-node timeout (a quarter of the command timeout).
      case PAUSE_MASTER -> Duration.ofMillis(between(random, 500, 3000));
      // How long the third master stays cut off at most, waiting for a hold the other two granted.
      case RESTART_MASTER, RESTART_MASTER_NODELAY, CLOCK_STEP_MASTER -> Duration.ofMillis(between(random, 2000, 3000));
      default -> Duration.ZERO;
    };
    Duration latency = f == Fault.DELAY
        ? Duration.ofMillis(between(random, 20, s.commandTimeout().toMillis() * 6 / 10))
        : Duration.ZERO;
    boolean all = f == Fault.DELAY && random.nextBoolean();
    // A kill is measured (claim d) and stays alone; other steps of a combined run get latency on top, now and then.
    Duration overlay = combined && f != Fault.KILL_HOLDER && f != Fault.DELAY && random.nextInt(10) < 3
        ? Duration.ofMillis(between(random, 20, 200))
        : Duration.ZERO;
    return new Step(f, gap, length, pick, latency, all, overlay);
  }

  private static long expectedExtraMillis(Fault f, TortureSettings s) {
    return switch (f) {
      case KILL_HOLDER -> s.lease().toMillis() + 2000;  // waiting for the lock, starting a replacement
      case RESTART_REDIS -> 300;
      // waiting for a long hold, the sentinels' failover (about 3 s with down-after 1 s), the rejoin and resync
      case FAILOVER, FAILOVER_HOLE -> 4500;
      // waiting for a long hold, the replica's takeover (about 2 s with a node timeout of 1 s), the rejoin
      case KILL_PRIMARY -> 4500;
      case MIGRATE_SLOT -> 800;  // waiting for a long hold, the migration
      case PARTITION_MASTER, PAUSE_MASTER -> 500;  // waiting for a long hold
      case RESTART_MASTER, RESTART_MASTER_NODELAY, CLOCK_STEP_MASTER -> 300;
      default -> 0;
    };
  }

  private static long between(Random random, long min, long max) {
    return min + (long) (random.nextDouble() * (max - min));
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder(fault.id);
    switch (fault) {
      case DELAY -> s.append(' ').append(latency.toMillis()).append(" ms on ")
          .append(allWorkers ? "every worker" : "one worker").append(" for ").append(seconds(length));
      case KILL_HOLDER, RESTART_REDIS, FAILOVER, KILL_PRIMARY, MIGRATE_SLOT -> { }
      case FAILOVER_HOLE -> s.append(" with replication cut up to ").append(seconds(length)).append(" before the kill");
      case RESTART_MASTER, RESTART_MASTER_NODELAY, CLOCK_STEP_MASTER -> s.append(" after cutting another master off up to ")
          .append(seconds(length));
      default -> s.append(" for ").append(seconds(length));
    }
    if (!overlay.isZero()) {
      s.append(", with ").append(overlay.toMillis()).append(" ms latency on every worker");
    }
    return s.append(", after ").append(seconds(gapBefore)).append(" quiet").toString();
  }

  static String seconds(Duration d) {
    return String.format(java.util.Locale.ROOT, "%.2f s", d.toMillis() / 1000.0);
  }
}

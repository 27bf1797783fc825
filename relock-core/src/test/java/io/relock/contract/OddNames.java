package io.relock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.LockLease;
import io.relock.Relock;
import io.relock.RelockListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Lock names and key prefixes made of relock's own key separators ({@code :h:}, {@code :q},
 * {@code :r}, {@code :w}, braces): each topology's contract takes every kind it offers under
 * them, holds them across several watchdog renewals, and releases them. A script that read a
 * name's structure from such a key (rather than from the closing brace of its hash tag) would
 * lose leases, fail a Cluster slot's whole renewal batch, or touch keys that are not the lock's.
 */
final class OddNames {
  static final List<String> NAMES = List.of("order:h:1", "h:", ":h:", "queue:q", "x:qi", "y:r", "z:w", "f:fence",
      "{t}:h:u", "b}r{a}ce", "%7D:h:", "plain");
  static final List<String> PREFIXES = List.of("relock:", "jobs:h:", "app:q:r:w:");
  /** Short, so that the watchdog renews every half second; long enough for a busy 2-core machine. */
  static final Duration LEASE = Duration.ofMillis(1500);

  private OddNames() {}

  /**
   * For each prefix, a client from {@code client} (given the prefix; it must use {@link #LEASE} as
   * its default lease) takes every name as an exclusive lock and, if {@code family}, as a
   * read-write lock's reader and writer and a semaphore's permit too; all are held until every one
   * has been renewed three times with no renewal failed and no lease lost, then released.
   */
  static void holdAcrossRenewals(Function<String, Relock> client, boolean family) {
    for (String prefix : PREFIXES) {
      Relock relock = client.apply(prefix);
      AtomicInteger renewed = new AtomicInteger();
      List<String> trouble = new java.util.concurrent.CopyOnWriteArrayList<>();
      relock.addListener(new RelockListener() {
        @Override
        public void renewed(int leases) {
          renewed.addAndGet(leases);
        }

        @Override
        public void renewalFailed(int leases, Throwable error) {
          trouble.add(leases + " renewals failed: " + error);
        }

        @Override
        public void leaseLost(String lockName, String reason) {
          trouble.add(lockName + " lost: " + reason);
        }
      });
      List<LockLease> held = new ArrayList<>();
      for (String name : NAMES) {
        held.add(relock.lock(name).acquire(Duration.ZERO));
        if (family) {
          held.add(relock.readWriteLock("rw/" + name).readLock().acquire(Duration.ZERO));
          held.add(relock.readWriteLock("rw2/" + name).writeLock().acquire(Duration.ZERO));
          held.add(relock.semaphore("sem/" + name, 2).acquire(Duration.ZERO));
        }
      }
      int target = renewed.get() + 3 * held.size();
      RelockContract.await("three renewals of every lease under prefix '" + prefix + "'",
          () -> renewed.get() >= target || !trouble.isEmpty());
      assertThat(trouble).as("under prefix '" + prefix + "'").isEmpty();
      for (LockLease lease : held) {
        assertThat(lease.isValid()).as(lease + " under prefix '" + prefix + "'").isTrue();
        lease.close();
      }
    }
  }
}

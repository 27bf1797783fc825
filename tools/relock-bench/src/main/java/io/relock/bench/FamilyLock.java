package io.relock.bench;

import java.util.SplittableRandom;
import java.util.concurrent.atomic.LongAdder;

/**
 * One load thread's lock in a lock family row: each acquire takes what the {@link Workload} draws
 * (a read or a write hold of the read-write lock, or a semaphore permit) and counts the hold in
 * the run's {@link HoldCheck} from the moment its acquire returned until just before its release.
 * Not shared between threads (the generator is the thread's own); the counters are.
 */
final class FamilyLock implements LockClient.BenchLock {

  /** Reads and writes taken by all threads of this process in one run. */
  static final class Counts {
    final LongAdder reads = new LongAdder();
    final LongAdder writes = new LongAdder();
  }

  private final Workload workload;
  private final LockClient.BenchLock read;
  private final LockClient.BenchLock write;
  private final LockClient.BenchLock permit;
  private final HoldCheck check;
  private final Counts counts;
  private final SplittableRandom random;

  FamilyLock(LockClient.Family client, String key, Workload workload, HoldCheck check, Counts counts, long seed) {
    this.workload = workload;
    this.check = check;
    this.counts = counts;
    this.random = new SplittableRandom(seed);
    switch (workload.kind()) {
      case READ_WRITE -> {
        read = client.readLock(key);
        write = client.writeLock(key);
        permit = null;
      }
      case SEMAPHORE -> {
        read = null;
        write = null;
        permit = client.semaphore(key, workload.permits());
      }
      default -> throw new IllegalArgumentException("a family lock is a read-write lock or a semaphore, not "
          + workload.kind());
    }
  }

  @Override
  public LockClient.Hold acquire() throws InterruptedException {
    HoldCheck.Mode mode = workload.kind() == Workload.Kind.SEMAPHORE ? HoldCheck.Mode.PERMIT
        : workload.nextIsRead(random) ? HoldCheck.Mode.READ : HoldCheck.Mode.WRITE;
    LockClient.Hold hold = switch (mode) {
      case READ -> read.acquire();
      case WRITE -> write.acquire();
      case PERMIT -> permit.acquire();
    };
    (mode == HoldCheck.Mode.READ ? counts.reads : counts.writes).increment();
    check.enter(mode);
    return () -> {
      check.exit(mode);
      hold.release();
    };
  }
}

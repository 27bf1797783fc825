package io.relock.torture;

import static io.relock.torture.HistoryWriter.fields;

import io.relock.DistributedLock;
import io.relock.DistributedSemaphore;
import io.relock.LockLease;
import io.relock.LockLostException;
import io.relock.LockTimeoutException;
import io.relock.Relock;
import io.relock.RelockException;
import java.nio.file.Files;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * One worker thread: until the stop file appears, acquire a random lock, read the fenced store,
 * wait a little, write back what it read plus one, release; every step goes to the history.
 *
 * <p>The thread deliberately does not check {@link LockLease#isValid()} before writing. A check
 * only narrows the window; a pause that falls between the check and the write (a GC pause, a
 * SIGSTOP) still lets a stale holder write, and that is the case fencing exists for. Writing
 * unconditionally makes every loss reach the store. It does record {@code isValid()} just before
 * the release, for the checker.
 *
 * <p>In abandon-holder runs some holds walk away from their fixed lease instead of closing it.
 *
 * <p>The lock family's workloads ({@link Workload}) take other locks and use the store their own
 * way, with the same events, so that the checker rebuilds their holds alike: a read-write lock's
 * reader only reads ({@code reader.lua}), its writer reads and writes like an exclusive holder; a
 * semaphore's holder enters the resource where the read is and leaves it where the write is
 * ({@code permit_enter.lua}, {@code permit_leave.lua}). {@link Event#ACQUIRE_SENT} names the lane:
 * {@code r}, {@code w} or {@code p} (a permit).
 */
final class CriticalSections implements Runnable {
  private final WorkerConfig config;
  private final int index;
  private final Relock relock;
  private final FencedStore store;
  private final HistoryWriter history;
  private final Random random;
  private long sequence;

  CriticalSections(WorkerConfig config, int index, Relock relock, FencedStore store, HistoryWriter history) {
    this.config = config;
    this.index = index;
    this.relock = relock;
    this.store = store;
    this.history = history;
    this.random = new Random(config.seed() * 31 + index);
  }

  @Override
  public void run() {
    while (!Files.exists(config.stopFile())) {
      String lock = config.locks().get(random.nextInt(config.locks().size()));
      boolean abandon = config.abandonOneIn() > 0 && random.nextInt(config.abandonOneIn()) == 0;
      boolean fixedLease = abandon || random.nextInt(4) == 0;
      long holdMillis = fixedLease || random.nextInt(config.longHoldOneIn()) != 0
          ? between(config.holdMin().toMillis(), config.holdMax().toMillis())
          : between(config.longHoldMin().toMillis(), config.longHoldMax().toMillis());
      String hold = config.name() + "/" + index + "/" + (++sequence);
      try {
        criticalSection(lock, hold, fixedLease, holdMillis, abandon);
      } catch (RuntimeException e) {
        history.record(Event.UNEXPECTED, lock, hold, 0, fields("error", e.toString()));
      }
      sleep(random.nextInt(10));
    }
  }

  private long between(long min, long max) {
    return min + (long) (random.nextDouble() * (max - min));
  }

  private void criticalSection(String lock, String hold, boolean fixedLease, long holdMillis, boolean abandon) {
    String lane = switch (config.workload()) {
      case EXCLUSIVE -> null;
      case READ_WRITE -> random.nextInt(100) < Workload.READ_PERCENT ? Hold.READ : Hold.WRITE;
      case SEMAPHORE -> Hold.PERMIT;
    };
    history.record(Event.ACQUIRE_SENT, lock, hold, 0, fields("lease", fixedLease ? "fixed" : "watchdog",
        "work_ms", holdMillis, "lane", lane));
    LockLease lease;
    try {
      lease = acquire(lock, lane, fixedLease);
    } catch (LockTimeoutException e) {
      history.record(Event.ACQUIRE_TIMEOUT, lock, hold, 0, null);
      return;
    } catch (RelockException e) {
      history.record(Event.ACQUIRE_FAILED, lock, hold, 0, fields("error", e.getMessage()));
      sleep(50);
      return;
    }
    long token = lease.fencingToken();
    history.record(Event.ACQUIRED, lock, hold, token, null);
    lease.onLost(() -> history.record(Event.LOST_NOTICE, lock, hold, token, fields("valid", lease.isValid())));
    try {
      if (Hold.READ.equals(lane)) {
        readShared(lock, hold, token, holdMillis);
      } else if (Hold.PERMIT.equals(lane)) {
        usePermit(lock, hold, token, holdMillis);
      } else {
        readModifyWrite(lock, hold, token, holdMillis);
      }
    } catch (RuntimeException e) {
      history.record(Event.STORE_FAILED, lock, hold, token, fields("error", String.valueOf(e.getMessage())));
    }
    if (abandon) {
      // Walk away as a crashed holder would: the fixed lease has to run out in Redis. (The client
      // still tracks the lease and releases it when it closes at the end of the run.)
      history.record(Event.ABANDONED, lock, hold, token, fields("valid", lease.isValid()));
      return;
    }
    history.record(Event.RELEASE_SENT, lock, hold, token, fields("valid", lease.isValid()));
    try {
      lease.close();
      history.record(Event.RELEASED, lock, hold, token, null);
    } catch (LockLostException e) {
      history.record(Event.RELEASE_LOST, lock, hold, token, fields("error", e.getMessage()));
    } catch (RelockException e) {
      history.record(Event.RELEASE_FAILED, lock, hold, token, fields("error", e.getMessage()));
    }
  }

  /** A lease of the workload's kind of lock: the lock, a lane of the read-write lock, or a permit. */
  private LockLease acquire(String lock, String lane, boolean fixedLease) {
    if (Hold.PERMIT.equals(lane)) {
      DistributedSemaphore semaphore = relock.semaphore(lock, Workload.PERMITS);
      return fixedLease ? semaphore.acquire(config.acquireWait(), config.lease())
          : semaphore.acquire(config.acquireWait());
    }
    DistributedLock l = lane == null ? relock.lock(lock)
        : Hold.READ.equals(lane) ? relock.readWriteLock(lock).readLock() : relock.readWriteLock(lock).writeLock();
    return fixedLease ? l.acquire(config.acquireWait(), config.lease()) : l.acquire(config.acquireWait());
  }

  /** An exclusive holder or a writer: read the counters, work, write back what it read plus one. */
  private void readModifyWrite(String lock, String hold, long token, long holdMillis) {
    FencedStore.Read read = store.read(lock, token);
    history.record(Event.READ, lock, hold, token, fields("fenced", read.fencedOk() ? "ok" : "refused",
        "value", read.fencedValue(), "wvalue", read.writeOnlyValue(), "uvalue", read.unfencedValue()));
    sleep(holdMillis);
    long sent = System.nanoTime();
    FencedStore.Write write = store.write(lock, token, read, hold);
    history.record(Event.WRITE, lock, hold, token, fields("fenced", outcome(write.fenced()),
        "wonly", outcome(write.writeOnly()), "base", read.fencedOk() ? read.fencedValue() : null, "sent", sent));
  }

  /** A reader: read the counters (when the read was sent is recorded, for the checker), then work. */
  private void readShared(String lock, String hold, long token, long holdMillis) {
    long sent = System.nanoTime();
    FencedStore.Read read = store.readShared(lock, token);
    history.record(Event.READ, lock, hold, token, fields("fenced", read.fencedOk() ? "ok" : "refused",
        "value", read.fencedValue(), "wvalue", read.writeOnlyValue(), "uvalue", read.unfencedValue(), "sent", sent));
    sleep(holdMillis);
  }

  /**
   * A permit's holder: enter the resource (recorded as the read), work, leave it (the write; skipped
   * if it was not let in).
   */
  private void usePermit(String semaphore, String hold, long token, long holdMillis) {
    FencedStore.Entry entry = store.enter(semaphore, token, hold, Workload.PERMITS);
    history.record(Event.READ, semaphore, hold, token, fields("fenced", entry.admitted() ? "ok" : "refused",
        "inside", entry.inside()));
    sleep(holdMillis);
    long sent = System.nanoTime();
    int left = entry.admitted() ? store.leave(semaphore, hold) : -1;
    history.record(Event.WRITE, semaphore, hold, token, fields("fenced", outcome(left), "sent", sent));
  }

  private static String outcome(int code) {
    return switch (code) {
      case 1 -> "accepted";
      case 0 -> "refused";
      default -> "skipped";
    };
  }

  private static void sleep(long millis) {
    try {
      TimeUnit.MILLISECONDS.sleep(millis);  // the work done under the lock, or a pause between sections
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

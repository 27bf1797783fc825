package io.relock.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FamilyLockTest {

  /** A "lock family" that excludes nobody, and records what was taken and released. */
  private static class NoLocks implements LockClient.Family {
    final List<String> log = new ArrayList<>();
    final List<Integer> permitsAsked = new ArrayList<>();

    private LockClient.BenchLock lock(String what) {
      return () -> {
        log.add("take " + what);
        return () -> log.add("release " + what);
      };
    }

    @Override
    public LockClient.BenchLock readLock(String name) {
      return lock("read " + name);
    }

    @Override
    public LockClient.BenchLock writeLock(String name) {
      return lock("write " + name);
    }

    @Override
    public LockClient.BenchLock semaphore(String name, int permits) {
      permitsAsked.add(permits);
      return lock("permit " + name);
    }

    @Override
    public LockClient.Hold tryPermit(String name, int permits) {
      throw new UnsupportedOperationException("the family rows never try");
    }
  }

  private static HoldCheck check(int permits) {
    return new HoldCheck(ByteBuffer.allocateDirect(HoldCheck.SIZE), permits);
  }

  @Test
  void aBrokenReadWriteLock_isCaught_whenTwoWritesOverlap() throws InterruptedException {
    NoLocks locks = new NoLocks();
    HoldCheck check = check(1);
    FamilyLock.Counts counts = new FamilyLock.Counts();
    Workload writesOnly = Workload.readWrite(0);
    LockClient.Hold first = new FamilyLock(locks, "k", writesOnly, check, counts, 1).acquire();
    LockClient.Hold second = new FamilyLock(locks, "k", writesOnly, check, counts, 2).acquire();
    assertThat(check.violations()).isEqualTo(1);
    second.release();
    first.release();
    assertThat(check.holding()).isZero();
    assertThat(counts.writes.sum()).isEqualTo(2);
    assertThat(counts.reads.sum()).isZero();
    assertThat(locks.log).containsExactly("take write k", "take write k", "release write k", "release write k");
  }

  @Test
  void readsTakeTheReadLane_andAreCountedAsReads() throws InterruptedException {
    NoLocks locks = new NoLocks();
    HoldCheck check = check(1);
    FamilyLock.Counts counts = new FamilyLock.Counts();
    FamilyLock reader = new FamilyLock(locks, "k", Workload.readWrite(100), check, counts, 1);
    LockClient.Hold a = reader.acquire();
    LockClient.Hold b = reader.acquire();
    assertThat(check.violations()).isZero();
    assertThat(check.mostReaders()).isEqualTo(2);
    a.release();
    b.release();
    assertThat(counts.reads.sum()).isEqualTo(2);
    assertThat(locks.log).allMatch(l -> l.contains("read k"));
  }

  @Test
  void aSemaphoreThatHandsOutTooManyPermits_isCaught() throws InterruptedException {
    NoLocks locks = new NoLocks();
    HoldCheck check = check(2);
    FamilyLock permits = new FamilyLock(locks, "s", Workload.semaphore(2), check, new FamilyLock.Counts(), 1);
    permits.acquire();
    permits.acquire();
    assertThat(check.violations()).isZero();
    permits.acquire();
    assertThat(check.violations()).isEqualTo(1);
    assertThat(check.firstViolation()).isEqualTo("3 permit holders at once, with 2 permits");
    assertThat(locks.permitsAsked).containsExactly(2);
  }

  @Test
  void theCheckLetsGoBeforeTheRelease_soACorrectLockNeverShowsAnOverlap() throws InterruptedException {
    HoldCheck check = check(1);
    List<String> order = new ArrayList<>();
    LockClient.Family family = new NoLocks() {
      @Override
      public LockClient.BenchLock writeLock(String name) {
        return () -> () -> order.add("released with " + check.holding() + " counted");
      }
    };
    new FamilyLock(family, "k", Workload.readWrite(0), check, new FamilyLock.Counts(), 1).acquire().release();
    assertThat(order).containsExactly("released with 0 counted");
  }

  @Test
  void theExclusiveLock_isNoFamilyLock() {
    assertThatThrownBy(() -> new FamilyLock(new NoLocks(), "k", Workload.EXCLUSIVE, check(1), new FamilyLock.Counts(), 1))
        .hasMessageContaining("read-write lock or a semaphore");
  }
}

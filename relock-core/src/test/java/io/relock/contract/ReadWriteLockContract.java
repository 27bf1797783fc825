package io.relock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.DistributedReadWriteLock;
import io.relock.LockLease;
import io.relock.Relock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A read-write lock: shared readers, a lone writer, arrival order, tokens, re-entrancy and downgrade. */
public abstract class ReadWriteLockContract extends RelockContract {

  private DistributedReadWriteLock rw(String name) {
    return client(b -> b.recheckInterval(Duration.ofMinutes(1))).readWriteLock(name);
  }

  private void awaitQueued(String name, int n) {
    await(n + " waiting for " + name, () -> redis("ZCARD", lockKey(name) + ":q").equals((long) n));
  }

  @Test
  void manyReaders_orOneWriter() {
    DistributedReadWriteLock a = rw("doc");
    DistributedReadWriteLock b = rw("doc");
    LockLease r1 = a.readLock().acquire(Duration.ZERO);
    LockLease r2 = b.readLock().acquire(Duration.ZERO);
    assertThat(a.writeLock().tryAcquire(Duration.ZERO)).as("a writer while readers hold").isEmpty();
    assertThat(a.readLock().isLocked()).isTrue();
    assertThat(a.writeLock().isLocked()).isFalse();
    r1.close();
    assertThat(b.writeLock().tryAcquire(Duration.ZERO)).as("a writer while one reader holds").isEmpty();
    r2.close();
    try (LockLease w = b.writeLock().acquire(Duration.ZERO)) {
      assertThat(a.readLock().tryAcquire(Duration.ZERO)).as("a reader while the writer holds").isEmpty();
      assertThat(a.writeLock().tryAcquire(Duration.ZERO)).as("a second writer").isEmpty();
      assertThat(w.isValid()).isTrue();
    }
    assertNoWaiters("doc");
  }

  /**
   * A writer whose score in the writers' index the clock has passed (as after renewals, which move
   * the hold's end and not its score) still keeps readers out while its hold key lives.
   */
  @Test
  void aWriterPastItsScore_stillKeepsReadersOut_whileItsKeyLives() {
    LockLease w = rw("rescored").writeLock().acquire(Duration.ZERO);
    String index = lockKey("rescored") + ":writers";
    String owner = (String) ((List<?>) redis("ZRANGE", index, "0", "0")).get(0);
    redis("ZADD", index, "1", owner);
    assertThat(rw("rescored").readLock().tryAcquire(Duration.ZERO)).as("a reader beside the writer").isEmpty();
    assertThat(rw("rescored").writeLock().tryAcquire(Duration.ZERO)).as("a second writer").isEmpty();
    assertThat(Double.parseDouble(String.valueOf(redis("ZSCORE", index, owner))))
        .as("scored again with its key's end").isGreaterThan(1e12);
    w.close();
    assertThat(redis("EXISTS", index)).as("the index went with its last member").isEqualTo(0L);
    assertNoWaiters("rescored");
  }

  @Test
  void aWaitingWriter_holdsUpReadersThatCameAfterIt() throws Exception {
    DistributedReadWriteLock a = rw("fair");
    LockLease reader = a.readLock().acquire(Duration.ZERO);
    CompletableFuture<LockLease> writer = rw("fair").writeLock().acquireAsync(PATIENCE);
    awaitQueued("fair", 1);
    assertThat(rw("fair").readLock().tryAcquire(Duration.ZERO)).as("a reader behind a waiting writer").isEmpty();
    CompletableFuture<LockLease> lateReader = rw("fair").readLock().acquireAsync(PATIENCE);
    awaitQueued("fair", 2);
    reader.close();
    LockLease w = writer.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(lateReader).isNotDone();
    w.close();
    lateReader.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS).close();
    assertNoWaiters("fair");
  }

  @Test
  void aWriterRelease_handsTheLockToEveryReaderQueuedBeforeTheNextWriter() throws Exception {
    LockLease first = rw("run").writeLock().acquire(Duration.ZERO);
    List<String> granted = new CopyOnWriteArrayList<>();
    List<CompletableFuture<LockLease>> queued = new ArrayList<>();
    String[] lanes = {"r1", "r2", "w2", "r3"};
    for (int i = 0; i < lanes.length; i++) {
      String who = lanes[i];
      DistributedReadWriteLock lock = rw("run");
      CompletableFuture<LockLease> f = (who.startsWith("r") ? lock.readLock() : lock.writeLock()).acquireAsync(PATIENCE);
      queued.add(f.thenApply(l -> {
        granted.add(who);
        return l;
      }));
      awaitQueued("run", i + 1);
    }
    rw("warm-up").writeLock().acquire(Duration.ZERO).close(); // scripts loaded: no NOSCRIPT retry counted below
    redis("CONFIG", "RESETSTAT");
    first.close();
    LockLease r1 = queued.get(0).get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    LockLease r2 = queued.get(1).get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(scriptCalls()).as("one release handed the lock to both readers").isEqualTo(1);
    assertThat(queued.get(2)).as("the writer after them waits").isNotDone();
    assertThat(queued.get(3)).as("the reader after that writer waits").isNotDone();
    r1.close();
    r2.close();
    queued.get(2).get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS).close();
    queued.get(3).get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS).close();
    assertThat(granted.subList(0, 2)).as("granted together, heard in any order").containsExactlyInAnyOrder("r1", "r2");
    assertThat(granted.subList(2, 4)).containsExactly("w2", "r3");
  }

  @Test
  void eachReadEpoch_hasATokenAboveEveryWriteBeforeIt_sharedByItsReaders_andBelowTheNextWrite() {
    DistributedReadWriteLock lock = rw("versions");
    long t1;
    try (LockLease w = lock.writeLock().acquire(Duration.ZERO)) {
      t1 = w.fencingToken();
    }
    long epoch;
    try (LockLease r = lock.readLock().acquire(Duration.ZERO); LockLease r2 = rw("versions").readLock().acquire(Duration.ZERO)) {
      epoch = r.fencingToken();
      assertThat(epoch).as("the epoch's token, above the write before it").isGreaterThan(t1);
      assertThat(r2.fencingToken()).as("a reader joining the epoch shares its token").isEqualTo(epoch);
    }
    long t2;
    try (LockLease w = lock.writeLock().acquire(Duration.ZERO)) {
      t2 = w.fencingToken();
      assertThat(t2).as("a write after the epoch").isGreaterThan(epoch);
    }
    try (LockLease r = lock.readLock().acquire(Duration.ZERO)) {
      assertThat(r.fencingToken()).as("the next epoch, above that write").isGreaterThan(t2);
    }
  }

  /**
   * A writer pauses past its lease without releasing; a reader is granted. Under the one rule a
   * resource applies (refuse a token lower than the highest accepted, reads and writes alike), the
   * paused writer must be refused once that reader has read: so its token must be below the
   * reader's.
   */
  @Test
  void aReaderGrantedAfterAWriterLostItsLease_carriesATokenAboveThatWriters() {
    LockLease paused = rw("paused").writeLock().acquire(Duration.ZERO, Duration.ofMillis(300));
    awaitNoHoldLeft("paused");
    try (LockLease reader = rw("paused").readLock().acquire(Duration.ZERO)) {
      FencedResource resource = new FencedResource();
      assertThat(resource.accepts(reader.fencingToken())).as("the reader reads").isTrue();
      assertThat(resource.accepts(paused.fencingToken())).as("the paused writer's write, after that read").isFalse();
      assertThat(reader.fencingToken()).isGreaterThan(paused.fencingToken());
    }
    assertThatThrownBy(paused::close).isInstanceOf(io.relock.LockLostException.class);
  }

  /** The rule docs/leases-and-fencing.md gives a resource: refuse a token lower than the highest accepted; equal tokens pass. */
  private static final class FencedResource {
    private long highest;

    boolean accepts(long token) {
      if (token < highest) {
        return false;
      }
      highest = token;
      return true;
    }
  }

  /** Waits until Redis holds no hold of read-write lock {@code name} any more (leases ran out). */
  private void awaitNoHoldLeft(String name) {
    await("no hold of " + name + " left in Redis", () -> ((List<?>) redis("KEYS", lockKey(name) + ":h:*")).isEmpty());
  }

  /**
   * A writer's hold ran out in Redis with a reader queued behind it, and its holder is silent; the
   * next reader's call serves the queued one and, nothing else blocking it, itself too, at once.
   */
  @Test
  void aReaderArrivingWhenOnlyQueuedReadersAreLetIn_isServedWithThem() throws Exception {
    LockLease writer = rw("lapsed").writeLock().acquire(Duration.ZERO, Duration.ofSeconds(30));
    CompletableFuture<LockLease> queued = rw("lapsed").readLock().acquireAsync(PATIENCE);
    awaitQueued("lapsed", 1);
    endSharedHold((String) ((List<?>) redis("KEYS", lockKey("lapsed") + ":h:*")).get(0)); // as when its lease ran out
    java.util.Optional<LockLease> late = rw("lapsed").readLock().tryAcquire(Duration.ZERO);
    assertThat(late).as("a reader trying while only readers could hold").isPresent();
    // The queued reader's rechecks are a minute apart: only that call can have let it in.
    LockLease first = queued.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(late.get().fencingToken()).as("one epoch").isEqualTo(first.fencingToken());
    late.get().close();
    first.close();
    assertThatThrownBy(writer::close).isInstanceOf(io.relock.LockLostException.class);
    assertNoWaiters("lapsed");
  }

  /** Every key a read-write lock leaves behind expires, also after holders lost their leases. */
  @Test
  void everyKeyLeftBehind_expires_evenWhenHoldersLostTheirLeases() {
    LockLease reader = rw("doc-17").readLock().acquire(Duration.ZERO, Duration.ofMillis(300));
    awaitNoHoldLeft("doc-17");
    assertThatThrownBy(reader::close).isInstanceOf(io.relock.LockLostException.class);
    assertEveryKeyExpires("doc-17");
    LockLease crashed = rw("doc-18").writeLock().acquire(Duration.ZERO, Duration.ofMillis(300));
    awaitNoHoldLeft("doc-18"); // its holder never comes back
    assertEveryKeyExpires("doc-18");
    assertThat(crashed.isValid()).isFalse();
  }

  private void assertEveryKeyExpires(String name) {
    for (Object key : (List<?>) redis("KEYS", lockKey(name) + "*")) {
      assertThat(redis("PTTL", (String) key)).as("expiry of " + key).isNotEqualTo(-1L);
    }
  }

  /**
   * A fence retention shorter than a hold: the name's kind marker still outlives the hold, so the
   * name cannot be taken as another kind beside it.
   */
  @Test
  void theKindMarker_outlivesEveryHold_evenWithAShortFenceRetention() {
    Relock shortRetention = client(b -> b.fenceRetention(Duration.ofMillis(800)));
    try (LockLease reader = shortRetention.readWriteLock("kept").readLock().acquire(Duration.ZERO, Duration.ofSeconds(5))) {
      String hold = (String) ((List<?>) redis("KEYS", lockKey("kept") + ":h:*")).get(0);
      assertThat((Long) redis("PTTL", lockKey("kept"))).as("marker against hold")
          .isGreaterThanOrEqualTo((Long) redis("PTTL", hold));
      await("the retention passed", () -> (Long) redis("PTTL", hold) < 3_800);
      assertThatThrownBy(() -> client().lock("kept").tryAcquire(Duration.ZERO))
          .isInstanceOf(io.relock.RelockException.class).hasMessageContaining("read-write lock");
      assertThatThrownBy(() -> client().semaphore("kept", 2).tryAcquire(Duration.ZERO))
          .isInstanceOf(io.relock.RelockException.class).hasMessageContaining("read-write lock");
      assertThat(reader.isValid()).isTrue();
    }
  }

  @Test
  void aWaitingWriterThatGivesUp_letsTheReadersQueuedBehindItIn_atOnce() throws Exception {
    LockLease reader = rw("gave-up").readLock().acquire(Duration.ZERO);
    CompletableFuture<LockLease> writer = rw("gave-up").writeLock().acquireAsync(Duration.ofMillis(500));
    awaitQueued("gave-up", 1);
    CompletableFuture<LockLease> lateReader = rw("gave-up").readLock().acquireAsync(PATIENCE);
    awaitQueued("gave-up", 2);
    assertThatThrownBy(() -> writer.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS))
        .hasCauseInstanceOf(io.relock.LockTimeoutException.class);
    // Its rechecks are a minute apart: only the writer's leaving can let it in before PATIENCE.
    lateReader.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS).close();
    reader.close();
    assertNoWaiters("gave-up");
  }

  @Test
  void forceUnlockOfAnExclusiveLock_refusesAReadWriteLocksName() {
    try (LockLease r = rw("guarded").readLock().acquire(Duration.ZERO)) {
      assertThatThrownBy(() -> client().lock("guarded").forceUnlock())
          .isInstanceOf(io.relock.RelockException.class).hasMessageContaining("read-write lock");
      assertThat(r.isValid()).isTrue();
      assertThat(rw("guarded").writeLock().tryAcquire(Duration.ZERO)).isEmpty();
    }
  }

  @Test
  void aWriterThread_mayTakeTheReadLock_andLetGoOfTheWriteLock() throws Exception {
    DistributedReadWriteLock lock = rw("downgrade");
    lock.writeLock().lock();
    lock.writeLock().lock();
    assertThat(lock.writeLock().getHoldCount()).isEqualTo(2);
    assertThat(lock.readLock().tryLock(1, TimeUnit.SECONDS)).as("downgrade: the writer takes the read lock").isTrue();
    lock.writeLock().unlock();
    lock.writeLock().unlock();
    assertThat(lock.writeLock().isHeldByCurrentThread()).isFalse();
    try (LockLease otherReader = rw("downgrade").readLock().acquire(Duration.ZERO)) {
      assertThat(otherReader.isValid()).as("readers share it with the downgraded thread").isTrue();
    }
    assertThat(rw("downgrade").writeLock().tryAcquire(Duration.ZERO)).as("a writer while it still reads").isEmpty();
    lock.readLock().unlock();
    assertThat(lock.readLock().isLocked()).isFalse();
  }

  @Test
  void aReaderThread_askingForTheWriteLock_isRefusedAtOnce_insteadOfWaitingForItself() {
    DistributedReadWriteLock lock = rw("upgrade");
    lock.readLock().lock();
    try {
      assertThatThrownBy(() -> lock.writeLock().lock()).isInstanceOf(IllegalMonitorStateException.class)
          .hasMessageContaining("'upgrade'").hasMessageContaining("read lock");
      assertThat(lock.writeLock().isLocked()).isFalse();
      assertNoWaiters("upgrade");
    } finally {
      lock.readLock().unlock();
    }
  }

  /** As ReentrantReadWriteLock allows: a thread holding both locks takes the write lock again. */
  @Test
  void aThreadHoldingTheWriteAndTheReadLock_reentersTheWriteLock() {
    DistributedReadWriteLock lock = rw("write-read-write");
    lock.writeLock().lock();
    lock.readLock().lock();
    lock.writeLock().lock();
    assertThat(lock.writeLock().getHoldCount()).isEqualTo(2);
    lock.writeLock().unlock();
    lock.writeLock().unlock();
    assertThat(lock.writeLock().isLocked()).isFalse();
    assertThat(lock.readLock().isHeldByCurrentThread()).isTrue();
    assertThatThrownBy(() -> lock.writeLock().lock()).as("now a reader only").isInstanceOf(IllegalMonitorStateException.class);
    lock.readLock().unlock();
    assertNoWaiters("write-read-write");
  }

  @Test
  void eachLane_isReentrantForItsThread() {
    DistributedReadWriteLock lock = rw("again");
    lock.readLock().lock();
    lock.readLock().lock();
    assertThat(lock.readLock().getHoldCount()).isEqualTo(2);
    lock.readLock().unlock();
    assertThat(lock.readLock().isLocked()).isTrue();
    lock.readLock().unlock();
    assertThat(lock.readLock().isLocked()).isFalse();
    assertThatThrownBy(() -> lock.readLock().unlock()).isInstanceOf(IllegalMonitorStateException.class);
  }

  @Test
  void aCancelledWaitingWriter_leavesNothingBehind_andTheReadersGoOn() throws Exception {
    LockLease reader = rw("cancel").readLock().acquire(Duration.ZERO);
    CompletableFuture<LockLease> writer = rw("cancel").writeLock().acquireAsync(PATIENCE);
    awaitQueued("cancel", 1);
    writer.cancel(true);
    await("the cancelled writer left the queue", () -> redis("ZCARD", lockKey("cancel") + ":q").equals(0L));
    try (LockLease another = rw("cancel").readLock().acquire(Duration.ZERO)) {
      assertThat(another.isValid()).isTrue();
    }
    reader.close();
    assertNoWaiters("cancel");
  }

  @Test
  void forceUnlock_endsEveryHoldOfALane_andItsHoldersAreTold() {
    Relock relock = client(b -> b.defaultLease(Duration.ofMillis(900)));
    LockLease r = relock.readWriteLock("forced").readLock().acquire(Duration.ZERO);
    assertThat(client().readWriteLock("forced").readLock().forceUnlock()).isTrue();
    await("the reader is told", () -> !r.isValid());
    assertThatThrownBy(r::close).isInstanceOf(io.relock.LockLostException.class);
  }

  /**
   * With fixed leases of ten minutes there is no renewal to find the loss: only the notice that
   * the forced unlock sends each holder's client can tell them within the wait below.
   */
  @Test
  void forceUnlock_ofEitherLane_tellsEveryHolderAtOnce_evenWithLeasesNoRenewalChecks() {
    Relock holders = client();
    Duration tenMinutes = Duration.ofMinutes(10);
    LockLease first = holders.readWriteLock("forced-fixed").readLock().acquire(Duration.ZERO, tenMinutes);
    LockLease second = client().readWriteLock("forced-fixed").readLock().acquire(Duration.ZERO, tenMinutes);
    assertThat(client().readWriteLock("forced-fixed").readLock().forceUnlock()).isTrue();
    await("both readers are told", () -> !first.isValid() && !second.isValid());
    assertThatThrownBy(first::close).isInstanceOf(io.relock.LockLostException.class);

    LockLease writer = holders.readWriteLock("forced-fixed").writeLock().acquire(Duration.ZERO, tenMinutes);
    assertThat(client().readWriteLock("forced-fixed").writeLock().forceUnlock()).isTrue();
    await("the writer is told", () -> !writer.isValid());
    assertThatThrownBy(writer::close).isInstanceOf(io.relock.LockLostException.class);
    assertThatThrownBy(second::close).isInstanceOf(io.relock.LockLostException.class);
  }
}

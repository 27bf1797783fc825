package io.relock.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.DistributedReadWriteLock;
import io.relock.DistributedSemaphore;
import io.relock.LockLease;
import io.relock.Relock;
import io.relock.RelockException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The snippets of docs/lock-family.md. */
class LockFamilyTest {

  private final Relock relock = Relock.connect(DocsRedis.uri());
  private final List<String> done = new ArrayList<>();

  @AfterEach
  void close() {
    relock.close();
  }

  private String readConfig(long fencingToken) {
    done.add("read " + fencingToken);
    return "config";
  }

  private void reload() {
    done.add("reload");
  }

  private void charge(String order, long fencingToken) {
    done.add("charge " + order);
  }

  private void transfer(long fromToken, long toToken) {
    done.add("transfer");
  }

  @Test
  void aReadWriteLock() {
    // snippet:read-write-lock
    DistributedReadWriteLock config = relock.readWriteLock("config");

    try (LockLease read = config.readLock().acquire(Duration.ofSeconds(1))) {   // shared with other readers
      readConfig(read.fencingToken());                                         // its read epoch's token
    }

    config.writeLock().lock();                                                 // alone; re-entrant per thread
    try {
      reload();
    } finally {
      config.writeLock().unlock();
    }
    // end:read-write-lock
    assertThat(done).hasSize(2);
  }

  @Test
  void aSemaphore() {
    String order = "order-1";
    // snippet:semaphore
    DistributedSemaphore payments = relock.semaphore("payment-provider", 5);     // at most 5 holders anywhere
    try (LockLease permit = payments.acquire(Duration.ofSeconds(2))) {
      charge(order, permit.fencingToken());                                     // each permit its own token
    }
    // end:semaphore
    assertThat(payments.availablePermits()).isEqualTo(5);
  }

  @Test
  void aMultiLock() {
    // snippet:multi-lock
    try (LockLease both = relock.multiLock("account:1", "account:2").acquire(Duration.ofSeconds(2))) {
      transfer(both.fencingTokens().get("account:1"), both.fencingTokens().get("account:2"));
    }
    // end:multi-lock
    assertThat(done).containsExactly("transfer");
  }

  @Test
  void oneName_oneKind() {
    try (LockLease held = relock.semaphore("printer", 2).acquire(Duration.ZERO)) {
      assertThatThrownBy(() -> relock.lock("printer").tryLock()).isInstanceOf(RelockException.class)
          .hasMessageContaining("printer");
    }
  }
}

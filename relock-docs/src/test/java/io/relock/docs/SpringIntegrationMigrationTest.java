package io.relock.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.Relock;
import io.relock.integration.RelockLockRegistry;
import io.relock.testkit.Await;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/** The snippets of docs/migrating-from-spring-integration.md: the registry, and a leader elected on it. */
class SpringIntegrationMigrationTest {

  /** The application's candidate for leadership. */
  static final class BillingLeader extends DefaultCandidate {
    BillingLeader() {
      super("billing-node", "billing-leader");
    }
  }

  /** The application's configuration, its beans made by hand here. */
  static final class Beans {
    // snippet:spring-integration-registry
    @Bean
    RelockLockRegistry lockRegistry(Relock relock) {
      return new RelockLockRegistry(relock, "billing");   // was: new RedisLockRegistry(connectionFactory, "billing")
    }
    // end:spring-integration-registry

    // snippet:spring-integration-leader
    @Bean
    LockRegistryLeaderInitiator leaderInitiator(RelockLockRegistry lockRegistry, BillingLeader leader) {
      return new LockRegistryLeaderInitiator(lockRegistry, leader);
    }
    // end:spring-integration-leader
  }

  @Test
  void theRegistry_locksAcrossClients_andTheInitiatorElectsALeaderOnIt() throws Exception {
    try (Relock relock = Relock.connect(DocsRedis.uri()); Relock other = Relock.connect(DocsRedis.uri())) {
      Beans beans = new Beans();
      RelockLockRegistry registry = beans.lockRegistry(relock);
      Lock lock = registry.obtain("invoice-run");
      assertThat(lock.tryLock()).isTrue();
      try {
        assertThat(new RelockLockRegistry(other, "billing").obtain("invoice-run").tryLock()).isFalse();
      } finally {
        lock.unlock();
      }

      BillingLeader leader = new BillingLeader();
      LockRegistryLeaderInitiator initiator = beans.leaderInitiator(registry, leader);
      initiator.start();
      try {
        Await.until("the only candidate leads", () -> initiator.getContext().isLeader());
      } finally {
        initiator.stop();
      }
    }
  }
}

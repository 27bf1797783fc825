package com.example.billing;

import io.relock.Relock;
import io.relock.integration.RelockLockRegistry;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/** Connects to spring.data.redis.* (application.properties or the environment). */
@SpringBootApplication
public class BillingApplication {

  public static void main(String[] args) {
    SpringApplication.run(BillingApplication.class, args);
  }

  /**
   * Where a RedisLockRegistry was: {@code new RedisLockRegistry(connectionFactory, "billing")}.
   * Its holds are renewed by relock's watchdog while this process lives.
   */
  @Bean
  RelockLockRegistry lockRegistry(Relock relock) {
    return new RelockLockRegistry(relock, "billing");
  }

  /** One instance leads: its {@link BillingLeader} runs the billing; the others stand by. */
  @Bean
  LockRegistryLeaderInitiator leaderInitiator(RelockLockRegistry lockRegistry, BillingLeader leader) {
    return new LockRegistryLeaderInitiator(lockRegistry, leader);
  }
}

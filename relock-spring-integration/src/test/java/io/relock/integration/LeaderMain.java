package io.relock.integration;

import io.relock.Relock;
import java.time.Duration;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * A child JVM of {@link LeaderElectionTest}: a {@link LockRegistryLeaderInitiator} on a {@link
 * RelockLockRegistry}, printing "granted" and "revoked" as its candidate hears them.
 *
 * <p>Arguments: the Redis URI, the client's default lease (ISO duration).
 */
public final class LeaderMain {
  private LeaderMain() {}

  public static void main(String[] args) throws Exception {
    Relock relock = Relock.builder().uri(args[0]).defaultLease(Duration.parse(args[1])).build();
    LockRegistryLeaderInitiator initiator = LeaderElectionTest.initiator(new RelockLockRegistry(relock),
        new DefaultCandidate("main", "cluster") {
      @Override
      public void onGranted(Context ctx) {
        System.out.println("granted");
        System.out.flush();
      }

      @Override
      public void onRevoked(Context ctx) {
        System.out.println("revoked");
        System.out.flush();
      }
    });
    initiator.start();
    System.out.println("started");
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }
}

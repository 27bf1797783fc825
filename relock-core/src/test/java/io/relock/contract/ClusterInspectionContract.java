package io.relock.contract;

import static io.relock.contract.RelockContract.PATIENCE;
import static io.relock.contract.RelockContract.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.relock.LockInfo;
import io.relock.LockLease;
import io.relock.RedisAcl;
import io.relock.Relock;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;
import io.relock.spi.RedisTarget;
import io.relock.testkit.RedisClusterGroup;
import io.relock.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@link Relock#list} and {@link Relock#inspect} on a Redis Cluster of three primaries: a listing
 * scans every primary (a SCAN sees only the keys of the node it runs on), and inspecting reads
 * the lock's own node.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class ClusterInspectionContract {
  private RedisClusterGroup cluster;
  private final List<Relock> clients = new ArrayList<>();

  /** Connects this module's driver to a Cluster target. */
  protected abstract RedisDriver connectDriver(RedisTarget target, DriverSettings settings);

  @BeforeAll
  void startCluster() {
    // Besides the default user the test kit uses, a user with exactly relock's documented rule.
    List<String> user = new ArrayList<>(List.of("--user", "locks", "on", ">pw"));
    user.addAll(List.of(RedisAcl.RULE.split(" ")));
    cluster = RedisClusterGroup.builder().replicasPerPrimary(0).arg(user.toArray(new String[0])).start();
  }

  @AfterAll
  void stopCluster() {
    cluster.close();
  }

  @BeforeEach
  void emptyCluster() {
    cluster.awaitHealthy(PATIENCE);
    cluster.flushAll();
    for (RedisServer p : cluster.primaries()) {
      p.execute("CONFIG", "RESETSTAT");
    }
  }

  @AfterEach
  void closeClients() {
    clients.forEach(Relock::close);
    clients.clear();
  }

  private Relock client() {
    return client(cluster.seedUris());
  }

  private Relock client(List<String> seeds) {
    Relock c = Relock.builder()
        .driver(connectDriver(RedisTarget.cluster(seeds), RelockContract.DRIVER_SETTINGS)).build();
    clients.add(c);
    return c;
  }

  private static long scans(RedisServer node) {
    for (String line : String.valueOf(node.execute("INFO", "commandstats")).split("\r?\n")) {
      if (line.startsWith("cmdstat_scan:calls=")) {
        String n = line.substring("cmdstat_scan:calls=".length());
        return Long.parseLong(n.substring(0, n.indexOf(',')));
      }
    }
    return 0;
  }

  @Test
  void list_scansEveryPrimary_andFindsTheLocksOfEverySlot() {
    Relock holder = client();
    List<LockLease> held = new ArrayList<>();
    Set<RedisServer> nodes = new HashSet<>();
    List<String> names = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      String name = "spread-" + (char) ('a' + i / 10) + (i % 10);
      names.add(name);
      held.add(holder.lock(name).acquire(Duration.ZERO));
      nodes.add(cluster.primaryFor("relock:{" + name + "}"));
    }
    assertThat(nodes).as("the names cover every primary").hasSize(3);

    List<LockInfo> listed = client().list("spread-*");

    assertThat(listed).extracting(LockInfo::name).containsExactlyElementsOf(names);
    for (int i = 0; i < held.size(); i++) {
      LockInfo.Holder h = listed.get(i).holder().orElseThrow();
      assertThat(h.clientId()).isEqualTo(holder.clientId());
      assertThat(h.fencingToken()).isEqualTo(held.get(i).fencingToken());
    }
    assertThat(cluster.primaries()).allSatisfy(p -> assertThat(scans(p)).as("SCANs on " + p).isPositive());
    held.forEach(LockLease::close);
    assertThat(client().list("*")).isEmpty();
  }

  @Test
  void underExactlyTheAclRule_clientsFindTheCluster_lockWaitAndList() throws Exception {
    List<String> seeds = cluster.seedUris().stream().map(u -> u.replace("redis://", "redis://locks:pw@")).toList();
    Relock holder = client(seeds);
    Relock waiter = client(seeds);
    LockLease held = holder.lock("acl").acquire(Duration.ZERO);
    CompletableFuture<LockLease> waiting = waiter.lock("acl").acquireAsync(PATIENCE);
    await("the waiter is queued", () -> holder.inspect("acl").waiters().size() == 1);
    assertThat(waiter.list("*")).extracting(LockInfo::name).containsExactly("acl");
    held.close();
    waiting.get(PATIENCE.toSeconds(), TimeUnit.SECONDS).close();
  }

  @Test
  void inspect_readsTheLocksOwnNode_withItsWaiters() throws Exception {
    Relock holder = client();
    Relock waiter = client();
    Relock observer = client();
    LockLease held = holder.lock("routed").acquire(Duration.ZERO);
    CompletableFuture<LockLease> waiting = waiter.lock("routed").acquireAsync(PATIENCE);
    await("the waiter is queued", () -> observer.inspect("routed").waiters().size() == 1);

    LockInfo info = observer.inspect("routed");
    assertThat(info.holder().orElseThrow().fencingToken()).isEqualTo(held.fencingToken());
    assertThat(info.waiters()).extracting(LockInfo.Waiter::clientId).containsExactly(waiter.clientId());

    held.close();
    waiting.get(PATIENCE.toSeconds(), TimeUnit.SECONDS).close();
    assertThat(observer.inspect("routed").isHeld()).isFalse();
  }
}

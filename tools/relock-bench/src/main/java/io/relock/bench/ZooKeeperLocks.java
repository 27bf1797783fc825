package io.relock.bench;

import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * ZooKeeper's lock recipe as Curator ships it: {@link InterProcessMutex} creates an ephemeral
 * sequential node under the lock's path and watches the node just before its own, so a waiter is
 * woken by the deletion of its predecessor's node (no polling, first come first served). A holder
 * that dies keeps its node until the server expires its session, {@code lease} after it last heard
 * from it (the server rounds it to its ticks and bounds). One Curator client per process, as an
 * application would have.
 */
final class ZooKeeperLocks implements LockClient {

  static final String ROOT = "/relock-bench/";

  private final CuratorFramework curator;

  ZooKeeperLocks(String connectString, Duration lease) {
    curator = CuratorFrameworkFactory.builder().connectString(connectString)
        .sessionTimeoutMs((int) lease.toMillis()).connectionTimeoutMs(15_000)
        .retryPolicy(new ExponentialBackoffRetry(100, 5)).build();
    curator.start();
    try {
      if (!curator.blockUntilConnected(30, java.util.concurrent.TimeUnit.SECONDS)) {
        throw new IllegalStateException("no ZooKeeper at " + connectString + " within 30 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted connecting to ZooKeeper", e);
    }
  }

  @Override
  public BenchLock lock(String name) {
    // An InterProcessMutex keeps which thread holds it, so threads of one process may share one.
    InterProcessMutex mutex = new InterProcessMutex(curator, ROOT + name);
    return () -> {
      try {
        mutex.acquire();
      } catch (InterruptedException e) {
        throw e;
      } catch (Exception e) {
        throw new IllegalStateException("ZooKeeper acquire failed: " + e, e);
      }
      return () -> {
        try {
          mutex.release();
        } catch (Exception e) {
          throw new IllegalStateException("ZooKeeper release failed: " + e, e);
        }
      };
    };
  }

  @Override
  public void close() {
    curator.close();
  }
}

package io.relock.bench;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.support.CloseableClient;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutionException;

/**
 * etcd's lock service through jetcd: {@code lock(name, lease)} puts a key under the lock's name
 * with the process's lease and returns once every key put there before it is gone (the server
 * waits on a watch: no polling, in order of creation revision); {@code unlock} deletes it. As
 * with etcd's own {@code concurrency.Session}, the process holds one lease, kept alive in the
 * background; a holder that dies keeps its key until the lease expires, {@code lease} after the
 * last keep-alive.
 */
final class EtcdLocks implements LockClient {

  private final Client client;
  private final long lease;
  private final CloseableClient keepAlive;

  EtcdLocks(String endpoint, Duration ttl) {
    client = Client.builder().endpoints(endpoint).build();
    try {
      lease = client.getLeaseClient().grant(Math.max(1, ttl.toSeconds())).get().getID();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      client.close();
      throw new IllegalStateException("interrupted granting an etcd lease", e);
    } catch (ExecutionException e) {
      client.close();
      throw new IllegalStateException("no etcd lease from " + endpoint + ": " + e.getCause(), e);
    }
    keepAlive = client.getLeaseClient().keepAlive(lease, new StreamObserver<LeaseKeepAliveResponse>() {
      @Override
      public void onNext(LeaseKeepAliveResponse value) {}

      @Override
      public void onError(Throwable t) {
        System.err.println("etcd keep-alive failed: " + t);
      }

      @Override
      public void onCompleted() {}
    });
  }

  @Override
  public BenchLock lock(String name) {
    ByteSequence key = ByteSequence.from("relock-bench/" + name, StandardCharsets.UTF_8);
    return () -> {
      ByteSequence held;
      try {
        held = client.getLockClient().lock(key, lease).get().getKey();
      } catch (ExecutionException e) {
        throw new IllegalStateException("etcd lock failed: " + e.getCause(), e);
      }
      return () -> {
        try {
          client.getLockClient().unlock(held).get();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted unlocking", e);
        } catch (ExecutionException e) {
          throw new IllegalStateException("etcd unlock failed: " + e.getCause(), e);
        }
      };
    };
  }

  @Override
  public void close() {
    keepAlive.close();
    try {
      client.getLeaseClient().revoke(lease).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      // The lease expires by itself.
    }
    client.close();
  }
}

package io.relock.torture;

import io.relock.Relock;
import java.util.ArrayList;
import java.util.List;

/**
 * A worker process: a relock client (through the worker's own proxy to the lock Redis), the fenced
 * store, and {@link WorkerConfig#threads()} threads running {@link CriticalSections}. Prints
 * {@code ready <client id>} once connected (the nemesis maps lock owners to processes by that id)
 * and {@code done} after the stop file appeared and every thread finished.
 */
public final class WorkerMain {

  private WorkerMain() {}

  public static void main(String[] args) throws InterruptedException {
    TortureMain.quietLogging("warn");
    WorkerConfig config = WorkerConfig.parse(args);
    try (HistoryWriter history = new HistoryWriter(config.history(), config.name());
        FencedStore store = new FencedStore(config.storeUri());
        Relock relock = client(config)) {
      history.record(Event.WORKER_STARTED, null, null, 0, HistoryWriter.fields("client", relock.clientId()));
      System.out.println("ready " + relock.clientId());
      List<Thread> threads = new ArrayList<>();
      for (int i = 0; i < config.threads(); i++) {
        CriticalSections loop = new CriticalSections(config, i, relock, store, history);
        Thread t = new Thread(loop, config.name() + "-t" + i);
        threads.add(t);
        t.start();
      }
      for (Thread t : threads) {
        t.join();
      }
      history.record(Event.WORKER_STOPPED, null, null, 0, null);
    }
    System.out.println("done");
    System.exit(0);
  }

  /**
   * The worker's relock client: one server, a primary found through the sentinels ({@code
   * redis-sentinel://}), a Redis Cluster, or Redlock over several masters.
   */
  private static Relock client(WorkerConfig config) {
    Relock.Builder b = Relock.builder();
    switch (config.topology()) {
      case REDLOCK -> b.redlock(config.lockUris()).redlockRestartDelay(config.redlockRestartDelay());
      case CLUSTER -> b.cluster(config.lockUris());
      default -> b.uri(config.lockUri());
    }
    b.defaultLease(config.lease())
        .commandTimeout(config.commandTimeout())
        .recheckInterval(config.recheckInterval());
    if (config.replicaAcks() > 0) {
      b.replicaAcks(config.replicaAcks(), config.replicaAckTimeout());
    }
    return b.build();
  }
}

package io.relock.demo.load;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Sends purchase requests over HTTP like the article's ApacheBench run: a fixed number of requests,
 * at most {@code concurrency} in flight, spread round-robin over the service processes.
 */
public final class LoadDriver {

  private final SeckillClient client;
  private final List<URI> services;
  private final PrintStream progress;

  /**
   * @param client the HTTP client
   * @param services the service processes' base URIs
   * @param progress where progress lines go, or null for none
   */
  public LoadDriver(SeckillClient client, List<URI> services, PrintStream progress) {
    if (services.isEmpty()) {
      throw new IllegalArgumentException("no service to send requests to");
    }
    this.client = client;
    this.services = List.copyOf(services);
    this.progress = progress;
  }

  /**
   * Sends {@code requests} purchases of {@code item} under {@code strategy}, {@code concurrency} at a
   * time, and returns once every one has been answered (or failed).
   */
  public LoadRun run(String strategy, String item, int requests, int concurrency) {
    if (requests < 1 || concurrency < 1) {
      throw new IllegalArgumentException("requests and concurrency must be positive: " + requests + ", " + concurrency);
    }
    long[] latencies = new long[requests];
    Outcome[] outcomes = new Outcome[requests];
    AtomicIntegerArray counts = new AtomicIntegerArray(Outcome.values().length);
    AtomicInteger next = new AtomicInteger();
    AtomicInteger done = new AtomicInteger();
    AtomicLong firstSoldOut = new AtomicLong(Long.MAX_VALUE);
    int step = Math.max(1, requests / 10);
    int threads = Math.min(concurrency, requests);
    ExecutorService pool = Executors.newFixedThreadPool(threads, daemon("load-" + strategy));
    long start = System.nanoTime();
    try {
      List<Future<?>> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        workers.add(
            pool.submit(
                () -> {
                  for (int i = next.getAndIncrement(); i < requests; i = next.getAndIncrement()) {
                    URI service = services.get(i % services.size());
                    long sent = System.nanoTime();
                    Outcome outcome = send(service, item, strategy);
                    long answered = System.nanoTime();
                    latencies[i] = answered - sent;
                    outcomes[i] = outcome;
                    counts.incrementAndGet(outcome.ordinal());
                    if (outcome == Outcome.SOLD_OUT) {
                      firstSoldOut.accumulateAndGet(answered - start, Math::min);
                    }
                    int finished = done.incrementAndGet();
                    if (progress != null && (finished % step == 0 || finished == requests)) {
                      report(strategy, finished, requests, counts, start);
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> worker : workers) {
        worker.get();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted during the load run", e);
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException("load worker failed", e.getCause());
    } finally {
      pool.shutdownNow();
    }
    long elapsed = System.nanoTime() - start;
    Map<Outcome, Integer> totals = new EnumMap<>(Outcome.class);
    for (Outcome outcome : Outcome.values()) {
      totals.put(outcome, counts.get(outcome.ordinal()));
    }
    long[] soldOutLatencies = new long[totals.get(Outcome.SOLD_OUT)];
    int n = 0;
    for (int i = 0; i < requests && n < soldOutLatencies.length; i++) {
      if (outcomes[i] == Outcome.SOLD_OUT) {
        soldOutLatencies[n++] = latencies[i];
      }
    }
    return new LoadRun(strategy, totals, latencies, elapsed,
        firstSoldOut.get() == Long.MAX_VALUE ? -1 : firstSoldOut.get(), soldOutLatencies);
  }

  private Outcome send(URI service, String item, String strategy) {
    try {
      SeckillClient.Answer answer = client.purchase(service, item, strategy);
      return Outcome.of(answer.status(), answer.code());
    } catch (IOException e) {
      return Outcome.FAILED;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Outcome.FAILED;
    }
  }

  private void report(String strategy, int finished, int requests, AtomicIntegerArray counts, long start) {
    int lockErrors = counts.get(Outcome.LOCK_BUSY.ordinal()) + counts.get(Outcome.STALE_TOKEN.ordinal());
    int otherErrors = counts.get(Outcome.REDIS_UNAVAILABLE.ordinal()) + counts.get(Outcome.FAILED.ordinal());
    progress.printf(
        "  %-10s %6d/%d requests  sold %5d  sold out %5d  lock errors %5d  other errors %3d  %5.1f s%n",
        strategy,
        finished,
        requests,
        counts.get(Outcome.SOLD.ordinal()),
        counts.get(Outcome.SOLD_OUT.ordinal()),
        lockErrors,
        otherErrors,
        (System.nanoTime() - start) / 1e9);
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    AtomicInteger n = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, name + "-" + n.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }
}

package io.relock.stress;

import java.time.Duration;

/**
 * How big a stress run is. The defaults are the short form that {@code ./mvnw verify} runs; the
 * long form raises them with system properties, for example {@code -Drelock.stress.rounds=60
 * -Drelock.stress.seed=7}.
 *
 * @param seed decides every worker's sequence of operations, waits and hold times (the thread
 *     interleavings and the moments faults land are the machine's, so a seed reproduces the
 *     workload, not the exact schedule)
 * @param rounds how many rounds; each ends at a quiescent checkpoint
 * @param round how long the workers run per round
 * @param clients clients (each one {@code Relock}) running at once
 * @param threadsPerClient worker threads per client; every second one is virtual where the JVM
 *     has virtual threads
 * @param names how many hot lock names the workers share (few: contention is the point); a
 *     third of the calls go to one of eight times as many cold names instead, mostly free, so that
 *     attempts often succeed, late ones included
 * @param commandTimeout the clients' command timeout; the faults pause Redis past it
 * @param faults whether the fault injector, the interrupter and the client closer run
 */
public record StressSettings(long seed, int rounds, Duration round, int clients, int threadsPerClient,
    int names, Duration commandTimeout, boolean faults) {

  static StressSettings fromSystemProperties() {
    return new StressSettings(
        Long.getLong("relock.stress.seed", 1L),
        Integer.getInteger("relock.stress.rounds", 4),
        Duration.ofMillis(Long.getLong("relock.stress.roundMillis", 3_000L)),
        Integer.getInteger("relock.stress.clients", 3),
        Integer.getInteger("relock.stress.threads", 4),
        Integer.getInteger("relock.stress.names", 3),
        Duration.ofMillis(Long.getLong("relock.stress.commandTimeoutMillis", 400L)),
        !Boolean.getBoolean("relock.stress.noFaults"));
  }

  @Override
  public String toString() {
    return "seed " + seed + ", " + rounds + " rounds of " + round.toMillis() + " ms, " + clients + " clients x "
        + threadsPerClient + " threads, " + names + " names, command timeout " + commandTimeout.toMillis()
        + " ms, faults " + (faults ? "on" : "off");
  }
}

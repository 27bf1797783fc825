package io.relock.demo.load;

import io.relock.demo.production.FaultPoints;
import io.relock.demo.production.OrderLedger;
import io.relock.testkit.JvmProcess;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;

/**
 * Strikes the order writers at the fault points of the sale's plan (see {@link FaultPoints}), on
 * its own thread while the buyers' load runs:
 *
 * <ol>
 *   <li>the writer that committed a batch and has not acknowledged it is killed ({@code kill -9});
 *   <li>a writer of the same partition about to write a batch (the next owner, which claimed the
 *       dead one's entries) is frozen (SIGSTOP) until a third writer has taken the partition over
 *       and written to the database with a newer token, then thawed (SIGCONT): its write with the
 *       old token must be refused.
 * </ol>
 *
 * {@link #await} returns what happened.
 */
public final class FaultDirector {

  private static final Duration POINT_DEADLINE = Duration.ofSeconds(60);
  private static final Duration TAKEOVER_DEADLINE = Duration.ofSeconds(60);
  private static final Duration FENCED_DEADLINE = Duration.ofSeconds(30);
  private static final Duration POLL = Duration.ofMillis(20);

  private final WriterFleet writers;
  private final String jdbcUrl;
  private final PrintStream out;
  private final Thread thread;
  private final List<String> problems = new ArrayList<>();
  private volatile String killed;
  private volatile String paused;
  private volatile long pausedMillis;
  private volatile boolean fenced;
  private volatile boolean stopped;

  /**
   * @param writers the writers to strike
   * @param jdbcUrl the orders' database, where the takeover is watched
   * @param out where each fault is announced as it happens
   */
  public FaultDirector(WriterFleet writers, String jdbcUrl, PrintStream out) {
    this.writers = writers;
    this.jdbcUrl = jdbcUrl;
    this.out = out;
    this.thread = new Thread(this::direct, "fault-director");
    this.thread.setDaemon(true);
  }

  /** Starts watching the writers. */
  public FaultDirector start() {
    thread.start();
    return this;
  }

  /**
   * Waits for both faults to have played out.
   *
   * @return what happened; {@link Faults#problems()} says what did not
   */
  public Faults await(Duration timeout) {
    try {
      thread.join(timeout.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
      stopped = true;
      synchronized (problems) {
        problems.add("the faults did not play out within " + timeout);
      }
    }
    synchronized (problems) {
      return new Faults(killed, paused, pausedMillis, fenced, List.copyOf(problems));
    }
  }

  /**
   * What the director did.
   *
   * @param killed the writer killed at the kill point, or null
   * @param paused the writer frozen at the pause point, or null
   * @param pausedMillis how long it was frozen
   * @param fenced whether its write after the thaw was refused by the database
   * @param problems what did not happen as planned; empty when both faults played out
   */
  public record Faults(String killed, String paused, long pausedMillis, boolean fenced, List<String> problems) {
    /** Whether both faults happened and the frozen writer's write was refused. */
    public boolean playedOut() {
      return killed != null && paused != null && fenced && problems.isEmpty();
    }
  }

  private void direct() {
    try {
      Map<String, String> kill = awaitPoint(FaultPoints.KILL_POINT, line -> true);
      if (kill == null) {
        problem("no writer reached the kill point within " + POINT_DEADLINE);
        return;
      }
      JvmProcess victim = writers.writer(kill.get("writer")).orElseThrow();
      victim.kill9();
      killed = kill.get("writer");
      out.printf("  fault: killed order writer %s (kill -9) after it committed %s orders of %s and before it"
          + " acknowledged them%n", killed, kill.get("orders"), kill.get("stream"));

      Map<String, String> pause = awaitPoint(FaultPoints.PAUSE_POINT, line -> !line.contains("writer=" + killed + " "));
      if (pause == null) {
        problem("no writer reached the pause point within " + POINT_DEADLINE);
        return;
      }
      String stream = pause.get("stream");
      long token = Long.parseLong(pause.get("token"));
      JvmProcess frozen = writers.writer(pause.get("writer")).orElseThrow();
      long frozenAt = System.nanoTime();
      frozen.pause();
      paused = pause.get("writer");
      out.printf("  fault: froze order writer %s (SIGSTOP) as it was about to write %s orders of %s with token %d%n",
          paused, pause.get("orders"), stream, token);
      boolean takenOver;
      try (OrderLedger ledger = OrderLedger.open(jdbcUrl)) {
        takenOver = waitFor(TAKEOVER_DEADLINE, () -> ledger.partitionToken(stream).orElse(0) > token);
      }
      frozen.resume();
      pausedMillis = (System.nanoTime() - frozenAt) / 1_000_000;
      if (!takenOver) {
        problem("no successor wrote to " + stream + " within " + TAKEOVER_DEADLINE + " while " + paused + " was frozen");
        return;
      }
      out.printf("  fault: thawed %s after %d ms, past its lease: another writer has taken %s over and written with a"
          + " newer token%n", paused, pausedMillis, stream);
      String refused = "fenced: writer=" + paused + " stream=" + stream + " ";
      fenced = waitFor(FENCED_DEADLINE, () -> frozen.output().stream().anyMatch(l -> l.startsWith(refused)));
      if (fenced) {
        out.printf("  fault: the database refused %s's write with its old token (the fence row holds a newer one)%n",
            paused);
      } else {
        problem(paused + "'s write with token " + token + " was not refused within " + FENCED_DEADLINE);
      }
    } catch (RuntimeException e) {
      problem("the fault director failed: " + e);
    }
  }

  /** The fields of the first line starting with {@code point} that passes {@code filter}, or null. */
  private Map<String, String> awaitPoint(String point, Predicate<String> filter) {
    AtomicReference<Map<String, String>> found = new AtomicReference<>();
    waitFor(POINT_DEADLINE, () -> {
      for (List<String> output : writers.outputs()) {
        for (String line : output) {
          if (line.startsWith(point) && filter.test(line + " ")) {
            found.set(fields(line));
            return true;
          }
        }
      }
      return false;
    });
    return found.get();
  }

  private boolean waitFor(Duration deadline, java.util.function.BooleanSupplier condition) {
    long end = System.nanoTime() + deadline.toNanos();
    while (!stopped) {
      if (condition.getAsBoolean()) {
        return true;
      }
      if (System.nanoTime() - end > 0) {
        return false;
      }
      LockSupport.parkNanos(POLL.toNanos());
    }
    return false;
  }

  private void problem(String what) {
    synchronized (problems) {
      problems.add(what);
    }
    out.println("  fault: " + what);
  }

  private static Map<String, String> fields(String line) {
    Map<String, String> fields = new HashMap<>();
    for (String part : line.split(" ")) {
      int eq = part.indexOf('=');
      if (eq > 0) {
        fields.put(part.substring(0, eq), part.substring(eq + 1));
      }
    }
    return fields;
  }
}

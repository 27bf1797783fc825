package io.relock.bench;

import com.sun.management.OperatingSystemMXBean;
import io.relock.DistributedLock;
import io.relock.LockLostException;
import io.relock.Relock;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Guarded sections ({@link DistributedLock#runLocked}, {@link DistributedLock#callLockedAsync}), as
 * the {@code --client} run measures them on each driver:
 * <ul>
 *   <li>their cost: one thread taking and releasing one free lock as a plain lease and as a guarded
 *       section with an empty task, their windows taking turns so that the machine's drift falls
 *       on both alike;
 *   <li>how soon a loss stops the task: another client force-unlocks the lock while the task
 *       sleeps, and the time from just before that forced unlock is sent to the moment the task
 *       catches its {@link InterruptedException} (blocking form), or sees its future cancelled
 *       (asynchronous form). It covers the forced unlock's round trip, the notice on the client's
 *       channel, the holder's read of the lock that confirms it, and the hand-over to the task.
 * </ul>
 */
final class GuardedSections {
  private static final String NAME = "client-cost-guarded";

  private final int windows;
  private final int opsPerWindow;
  private final int lossRounds;
  private final OperatingSystemMXBean os =
      (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  GuardedSections(int windows, int opsPerWindow, boolean shortRun) {
    this.windows = windows;
    this.opsPerWindow = opsPerWindow;
    this.lossRounds = shortRun ? 50 : 200;
  }

  /** Time and client CPU per operation, in microseconds, one figure per window. */
  record Cost(Spread wallMicros, Spread cpuMicros) {}

  /** The plain lease's cost, then the guarded section's, their windows taking turns. */
  Cost[] costTurns(Relock relock) {
    DistributedLock lock = relock.lock(NAME);
    Runnable[] ops = {() -> lock.acquire(Duration.ZERO).close(), () -> lock.runLocked(Duration.ZERO, () -> {})};
    double[][] wall = new double[2][windows];
    double[][] cpu = new double[2][windows];
    for (int w = -1; w < windows; w++) {
      for (int k = 0; k < 2; k++) {
        long cpuBefore = os.getProcessCpuTime();
        long began = System.nanoTime();
        for (int i = 0; i < opsPerWindow; i++) {
          ops[k].run();
        }
        if (w >= 0) {
          wall[k][w] = (System.nanoTime() - began) / 1000.0 / opsPerWindow;
          cpu[k][w] = (os.getProcessCpuTime() - cpuBefore) / 1000.0 / opsPerWindow;
        }
      }
    }
    return new Cost[] {new Cost(Spread.of(wall[0]), Spread.of(cpu[0])), new Cost(Spread.of(wall[1]), Spread.of(cpu[1]))};
  }

  /**
   * {@link #lossRounds} forced unlocks of a guarded section that {@code holder} runs, by {@code
   * operator}: the delays to the interrupt and to the cancellation, in microseconds (lowest,
   * median, highest), printed to {@code log}.
   *
   * @return the summary's key=value pairs for {@code driver}
   */
  String lossDelays(Relock holder, Relock operator, String driver, PrintStream log) throws Exception {
    double[] interrupt = new double[lossRounds];
    double[] cancel = new double[lossRounds];
    DistributedLock lock = holder.lock(NAME);
    DistributedLock forcing = operator.lock(NAME);
    for (int i = 0; i < lossRounds; i++) {
      AtomicLong interruptedAt = new AtomicLong();
      CompletableFuture<Void> running = new CompletableFuture<>();
      Thread task = new Thread(() -> {
        try {
          lock.runLocked(Duration.ZERO, () -> {
            running.complete(null);
            try {
              Thread.sleep(TimeUnit.MINUTES.toMillis(1));
            } catch (InterruptedException e) {
              interruptedAt.set(System.nanoTime());
            }
          });
        } catch (LockLostException expected) {
          // the loss, reported once the task returned
        }
      }, "guarded-section");
      task.start();
      running.get(1, TimeUnit.MINUTES);
      long forced = System.nanoTime();
      forcing.forceUnlock();
      task.join(TimeUnit.MINUTES.toMillis(1));
      interrupt[i] = (interruptedAt.get() - forced) / 1000.0;

      CompletableFuture<Void> work = new CompletableFuture<>();
      AtomicLong cancelledAt = new AtomicLong();
      work.whenComplete((v, e) -> cancelledAt.set(System.nanoTime()));
      CompletableFuture<Void> started = new CompletableFuture<>();
      CompletableFuture<Void> call = lock.callLockedAsync(Duration.ZERO, lease -> {
        started.complete(null);
        return work;
      });
      started.get(1, TimeUnit.MINUTES);
      forced = System.nanoTime();
      forcing.forceUnlock();
      call.handle((v, e) -> null).get(1, TimeUnit.MINUTES);
      cancel[i] = (cancelledAt.get() - forced) / 1000.0;
    }
    Spread toInterrupt = Spread.of(interrupt);
    Spread toCancel = Spread.of(cancel);
    log.println(String.format(Locale.ROOT, "client: %s: forced unlock to the guarded task's interrupt: median %,.0f us,"
        + " 90th percentile %,.0f us, worst %,.0f us; to its future's cancellation: median %,.0f us, 90th percentile"
        + " %,.0f us, worst %,.0f us (%d runs each)", driver, toInterrupt.median(), percentile(interrupt, 0.9),
        toInterrupt.max(), toCancel.median(), percentile(cancel, 0.9), toCancel.max(), lossRounds));
    return String.format(Locale.ROOT, "%s_loss_to_interrupt_us=%.0f %s_loss_to_interrupt_worst_us=%.0f"
        + " %s_loss_to_cancel_us=%.0f %s_loss_to_cancel_worst_us=%.0f", driver, toInterrupt.median(), driver,
        toInterrupt.max(), driver, toCancel.median(), driver, toCancel.max());
  }

  /** The value below which a {@code fraction} of {@code values} lie (nearest rank). */
  static double percentile(double[] values, double fraction) {
    double[] sorted = values.clone();
    java.util.Arrays.sort(sorted);
    return sorted[Math.max(0, (int) Math.ceil(fraction * sorted.length) - 1)];
  }
}

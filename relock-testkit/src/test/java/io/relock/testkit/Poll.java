package io.relock.testkit;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Waits for a condition by polling it, with a generous deadline, instead of sleeping blindly. */
final class Poll {

    private Poll() {
    }

    static void until(String what, Duration deadline, BooleanSupplier condition) {
        long end = System.nanoTime() + deadline.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError("not true within " + deadline + ": " + what);
            }
            try {
                TimeUnit.MILLISECONDS.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for: " + what, e);
            }
        }
    }

    static void until(String what, BooleanSupplier condition) {
        until(what, Duration.ofSeconds(15), condition);
    }

    /** Whether a process is gone: no such pid, exited, or a zombie waiting to be reaped. */
    static boolean isDead(long pid) {
        return !Signals.isAlive(pid);
    }
}

package io.relock.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Sends POSIX signals to processes through the {@code kill} command, since the JDK can only
 * terminate a process, not stop or continue it. Linux only in the sense that stop/continue are
 * confirmed through {@code /proc}; elsewhere the signal is sent without confirmation.
 */
final class Signals {

    private static final Duration CONFIRMATION_DEADLINE = Duration.ofSeconds(5);

    private Signals() {
    }

    /** Sends SIGSTOP and returns once the kernel reports the process as stopped. */
    static void stop(long pid) {
        send(pid, "STOP");
        awaitStopped(pid, true);
    }

    /** Sends SIGCONT and returns once the kernel reports the process as no longer stopped. */
    static void resume(long pid) {
        send(pid, "CONT");
        awaitStopped(pid, false);
    }

    private static void send(long pid, String signal) {
        ExternalCommand.runOrFail(null, List.of("kill", "-" + signal, Long.toString(pid)));
    }

    /** Whether the process is in state T (stopped); false when /proc does not say. */
    static boolean isStopped(long pid) {
        return state(pid) == 'T';
    }

    /**
     * Whether the process has exited but not been reaped yet. The JDK counts such a zombie as
     * alive; it is not, and an init that is slow to reap (or, in some containers, never reaps)
     * would otherwise keep a killed orphan "alive".
     */
    static boolean isZombie(long pid) {
        char state = state(pid);
        return state == 'Z' || state == 'X';
    }

    /** Whether the process exists and has not exited (zombies count as exited). */
    static boolean isAlive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) && !isZombie(pid);
    }

    /** The state letter from /proc/PID/stat, or 0 when unknown. */
    private static char state(long pid) {
        Path stat = Path.of("/proc", Long.toString(pid), "stat");
        try {
            String content = Files.readString(stat);
            // The command name in parentheses may itself contain spaces, so read the state after it.
            int end = content.lastIndexOf(')');
            return end >= 0 && content.length() > end + 2 ? content.charAt(end + 2) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    private static void awaitStopped(long pid, boolean stopped) {
        if (!Files.isDirectory(Path.of("/proc", Long.toString(pid)))) {
            return;
        }
        long deadline = System.nanoTime() + CONFIRMATION_DEADLINE.toNanos();
        while (isStopped(pid) != stopped) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("process " + pid + " did not become "
                        + (stopped ? "stopped" : "running") + " within " + CONFIRMATION_DEADLINE);
            }
            try {
                TimeUnit.MILLISECONDS.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for process " + pid, e);
            }
        }
    }
}

package io.relock.testkit;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A child JVM running a {@code main} class with this JVM's class path, for tests that need
 * several processes: lock holders in different JVMs, a holder killed with {@code kill -9}, or
 * frozen with SIGSTOP.
 *
 * <pre>{@code
 * try (JvmProcess holder = JvmProcess.start(HolderMain.class, redis.uri())) {
 *     holder.awaitLine(line -> line.equals("locked"), Duration.ofSeconds(30));
 *     holder.kill9();
 * }
 * }</pre>
 *
 * <p>The child's stdout and stderr are merged, collected line by line ({@link #output()}) and
 * copied to a log file ({@link #logFile()}) under {@code ${java.io.tmpdir}/relock-testkit/jvm}
 * (kept for a day, for post-mortems).
 * A child still alive when this JVM exits is killed by a shutdown hook. Thread-safe.
 */
public final class JvmProcess implements AutoCloseable {
    /**
     * The options every child starts with, before the caller's: the client compiler alone and the
     * serial collector. A test's child JVM lives seconds and mostly waits; C2 compiling its hot
     * code and G1's threads cost more CPU than they give back, on a machine of few cores that runs
     * the test JVMs too. A caller's {@code -XX:+UseG1GC} or {@code -XX:TieredStopAtLevel=4}
     * overrides them.
     */
    public static final List<String> DEFAULT_JVM_ARGS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");


    private static final Duration EXIT_DEADLINE = Duration.ofSeconds(10);
    private static final Path LOG_DIR = ProcessJanitor.JVM_LOG_DIR;

    private final Process process;
    private final String description;
    private final Path logFile;
    private final List<String> lines = new ArrayList<>();
    private boolean outputEnded;
    private final Thread outputReader;

    private JvmProcess(Process process, String description, Path logFile) {
        this.process = process;
        this.description = description;
        this.logFile = logFile;
        this.outputReader = new Thread(this::collectOutput, "relock-jvm-output-" + process.pid());
        outputReader.setDaemon(true);
        outputReader.start();
    }

    /**
     * Starts {@code mainClass} with {@code args} in a new JVM, without extra JVM options.
     *
     * @param mainClass the class whose {@code main} the child runs; must be on this JVM's class path
     * @param args the arguments of {@code main}
     * @return the running child; close it to kill it if it is still alive
     * @throws UncheckedIOException if the JVM or its log file cannot be created
     */
    public static JvmProcess start(Class<?> mainClass, String... args) {
        return start(List.of(), mainClass, args);
    }

    /**
     * Starts {@code mainClass} with {@code args} in a new JVM: {@code java} from {@code java.home},
     * then {@link #DEFAULT_JVM_ARGS}, then {@code jvmArgs} (e.g. {@code -Xmx64m}, {@code
     * -Dkey=value}; a later option overrides an earlier one), then this JVM's {@code
     * java.class.path}.
     *
     * @param jvmArgs options for the child JVM, placed before the class path; may be empty
     * @param mainClass the class whose {@code main} the child runs; must be on this JVM's class path
     * @param args the arguments of {@code main}
     * @return the running child; close it to kill it if it is still alive
     * @throws UncheckedIOException if the JVM or its log file cannot be created
     */
    public static JvmProcess start(List<String> jvmArgs, Class<?> mainClass, String... args) {
        return start(jvmArgs, Map.of(), mainClass, args);
    }

    /** As {@link #start(List, Class, String...)}, with {@code environment} added to the child's. */
    static JvmProcess start(List<String> jvmArgs, Map<String, String> environment, Class<?> mainClass, String... args) {
        Objects.requireNonNull(jvmArgs, "jvmArgs");
        Objects.requireNonNull(mainClass, "mainClass");
        Objects.requireNonNull(args, "args");
        ProcessJanitor.ensureInitialized();
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(DEFAULT_JVM_ARGS);
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(List.of(args));
        try {
            Files.createDirectories(LOG_DIR);
            Path logFile = Files.createTempFile(LOG_DIR, mainClass.getSimpleName() + "-", ".log");
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
            builder.environment().putAll(environment);
            Process process = builder.start();
            ProcessJanitor.adopt(process);
            return new JvmProcess(process, mainClass.getSimpleName() + " (pid " + process.pid() + ")", logFile);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a JVM for " + mainClass.getName(), e);
        }
    }

    /**
     * The child's pid.
     *
     * @return the operating system's process id of the child
     */
    public long pid() {
        return process.pid();
    }

    /**
     * Where the child's output is copied; kept after the child exits.
     *
     * @return the log file, under {@code ${java.io.tmpdir}/relock-testkit/jvm}
     */
    public Path logFile() {
        return logFile;
    }

    /**
     * The child's stdout and stderr lines so far, as a snapshot.
     *
     * @return an unmodifiable copy of the lines read so far, in order, without line terminators
     */
    public List<String> output() {
        synchronized (lines) {
            return List.copyOf(lines);
        }
    }

    /**
     * Waits until the child prints a line matching {@code match} and returns it. All output so far
     * is considered, so a line printed before this call is found too (the first match wins).
     *
     * @param match the test a line must pass
     * @param timeout how long to wait for a matching line
     * @return the first matching line, without its line terminator
     * @throws IllegalStateException carrying the child's output, if no such line appears within
     *     {@code timeout} or the child's output ends (it exited) first
     */
    public String awaitLine(Predicate<String> match, Duration timeout) {
        Objects.requireNonNull(match, "match");
        long deadline = System.nanoTime() + timeout.toNanos();
        boolean ended;
        synchronized (lines) {
            int checked = 0;
            while (true) {
                for (; checked < lines.size(); checked++) {
                    if (match.test(lines.get(checked))) {
                        return lines.get(checked);
                    }
                }
                if (outputEnded) {
                    ended = true;
                    break;
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    ended = false;
                    break;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(lines, remaining);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while waiting for output of " + description, e);
                }
            }
        }
        String why = ended ? "ended (exit code " + exitCodeOrUnknown() + ") without" : "did not print within " + timeout;
        throw new IllegalStateException(description + " " + why + " a matching line; output:\n" + formatOutput());
    }

    /**
     * Waits for the child to exit and returns its exit code, once its output has been collected.
     *
     * @param timeout how long to wait for the child to exit
     * @return the child's exit code
     * @throws IllegalStateException carrying the output, if it is still running after {@code timeout}
     */
    public int waitFor(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                throw new IllegalStateException(description + " still running after " + timeout
                        + "; output:\n" + formatOutput());
            }
            outputReader.join(EXIT_DEADLINE.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + description, e);
        }
        ProcessJanitor.release(process);
        return process.exitValue();
    }

    /** Kills the child with SIGKILL (no shutdown hooks run in it) and waits for it to exit. */
    public void kill9() {
        process.destroyForcibly();
        try {
            if (!process.waitFor(EXIT_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(description + " did not die within " + EXIT_DEADLINE);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while killing " + description, e);
        }
        ProcessJanitor.release(process);
    }

    /** Freezes the child with SIGSTOP; returns once the kernel reports it stopped. */
    public void pause() {
        Signals.stop(process.pid());
    }

    /** Thaws the child with SIGCONT. */
    public void resume() {
        Signals.resume(process.pid());
    }

    /**
     * Whether the child is alive (a paused child counts as alive).
     *
     * @return {@code true} until the child has exited
     */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** Kills the child if it is still alive. Idempotent. */
    @Override
    public void close() {
        if (process.isAlive()) {
            kill9();
        }
        ProcessJanitor.release(process);
    }

    @Override
    public String toString() {
        return "JvmProcess[" + description + (isAlive() ? "" : ", exited") + "]";
    }

    private void collectOutput() {
        Charset charset = Charset.defaultCharset();
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(), charset));
                BufferedWriter log = Files.newBufferedWriter(logFile, StandardCharsets.UTF_8)) {
            String line;
            boolean childSpoke = false;
            while ((line = reader.readLine()) != null) {
                log.write(line);
                log.newLine();
                log.flush();
                if (!childSpoke && isLauncherNotice(line)) {
                    continue;
                }
                childSpoke = true;
                synchronized (lines) {
                    lines.add(line);
                    lines.notifyAll();
                }
            }
        } catch (IOException e) {
            // The pipe breaks when the child is killed; what was read so far is kept.
        } finally {
            synchronized (lines) {
                outputEnded = true;
                lines.notifyAll();
            }
        }
    }

    /**
     * Whether {@code line} is what the JVM prints to stderr before {@code main} when it takes options
     * from the environment ({@code JAVA_TOOL_OPTIONS} and the like, set on many CI machines): the
     * log file keeps it, {@link #output()} leaves it out, as it is not the child's. For tests that
     * read a child JVM's stderr themselves.
     *
     * @param line a line of a JVM's stderr, without its terminator
     * @return true if the JVM, not the program it runs, printed it
     */
    public static boolean isLauncherNotice(String line) {
        return line.startsWith("Picked up JAVA_TOOL_OPTIONS: ") || line.startsWith("Picked up _JAVA_OPTIONS: ")
                || line.startsWith("NOTE: Picked up JDK_JAVA_OPTIONS: ");
    }

    private String exitCodeOrUnknown() {
        try {
            return process.waitFor(1, TimeUnit.SECONDS) ? Integer.toString(process.exitValue()) : "unknown";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    private String formatOutput() {
        StringBuilder text = new StringBuilder();
        for (String line : output()) {
            text.append("  | ").append(line).append('\n');
        }
        return text.append("  (full log: ").append(logFile).append(')').toString();
    }
}

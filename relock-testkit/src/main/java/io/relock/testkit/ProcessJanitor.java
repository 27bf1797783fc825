package io.relock.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Makes sure no process started by the test kit outlives the JVM that started it.
 *
 * <p>Two layers: a shutdown hook kills every live child on a normal JVM exit, and a pid file per
 * redis-server (under {@code ${java.io.tmpdir}/relock-testkit/pids}) names the owning JVM, so that
 * the first test kit use in a later JVM can kill servers left behind by a JVM that was itself
 * killed (where no hook runs). A recorded process is only killed when its start time still
 * matches, so a recycled pid is never hit.
 */
final class ProcessJanitor {

    /** Root of everything the test kit writes to disk. */
    static final Path BASE_DIR = Path.of(System.getProperty("java.io.tmpdir"), "relock-testkit");
    static final Path PID_DIR = BASE_DIR.resolve("pids");
    static final Path JVM_LOG_DIR = BASE_DIR.resolve("jvm");
    private static final Duration JVM_LOG_RETENTION = Duration.ofDays(1);

    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();
    private static final Set<Path> OWNED_PATHS = ConcurrentHashMap.newKeySet();
    private static boolean initialized;

    private ProcessJanitor() {
    }

    /** Installs the shutdown hook and sweeps leftovers of dead JVMs; only the first call does work. */
    static synchronized void ensureInitialized() {
        if (initialized) {
            return;
        }
        initialized = true;
        Thread hook = new Thread(ProcessJanitor::killEverything, "relock-testkit-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
        sweepLeftovers();
        deleteOldJvmLogs();
    }

    /** Tracks a child process so that the shutdown hook kills it. */
    static void adopt(Process process) {
        LIVE.add(process);
    }

    /** Stops tracking a child process that has exited. */
    static void release(Process process) {
        LIVE.remove(process);
    }

    /** Deletes {@code path} (recursively) when the JVM exits, unless {@link #forgetPath} is called first. */
    static void deleteOnExit(Path path) {
        OWNED_PATHS.add(path);
    }

    static void forgetPath(Path path) {
        OWNED_PATHS.remove(path);
    }

    /**
     * Writes the pid file of a redis-server owned by this JVM.
     *
     * @return the pid file, to be passed to {@link #forgetServer} once the server has exited
     */
    static Path recordServer(Process server, Path dataDir) {
        ProcessHandle self = ProcessHandle.current();
        String content = "owner=" + self.pid() + "\n"
                + "ownerStart=" + startMillis(self) + "\n"
                + "server=" + server.pid() + "\n"
                + "serverStart=" + startMillis(server.toHandle()) + "\n"
                + "dir=" + dataDir.toAbsolutePath() + "\n";
        Path file = PID_DIR.resolve(self.pid() + "-" + server.pid() + ".pid");
        try {
            Files.createDirectories(PID_DIR);
            Path partial = Files.createTempFile(PID_DIR, "writing-", ".tmp");
            Files.writeString(partial, content);
            // Renamed into place so that a concurrent sweep never reads half a file.
            Files.move(partial, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write pid file " + file, e);
        }
        OWNED_PATHS.add(file);
        return file;
    }

    static void forgetServer(Path pidFile) {
        OWNED_PATHS.remove(pidFile);
        deleteQuietly(pidFile);
    }

    /**
     * Kills redis-servers recorded by JVMs that are no longer alive and removes their files.
     * Package-private so a test can run it after killing a child JVM.
     */
    static void sweepLeftovers() {
        if (!Files.isDirectory(PID_DIR)) {
            return;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(PID_DIR, "*.pid")) {
            for (Path file : files) {
                sweep(file);
            }
        } catch (IOException e) {
            System.err.println("relock-testkit: cannot scan " + PID_DIR + ": " + e);
        }
    }

    private static void sweep(Path file) {
        Map<String, String> record;
        try {
            record = parse(Files.readString(file));
            long owner = Long.parseLong(record.get("owner"));
            if (isSameProcessAlive(owner, record.get("ownerStart"))) {
                return;
            }
            long server = Long.parseLong(record.get("server"));
            Optional<ProcessHandle> orphan = ProcessHandle.of(server)
                    .filter(handle -> isSameProcessAlive(server, record.get("serverStart")));
            orphan.ifPresent(ProcessJanitor::killAndAwait);
        } catch (NoSuchFileException e) {
            return; // another JVM swept it first
        } catch (IOException | RuntimeException e) {
            System.err.println("relock-testkit: ignoring unreadable pid file " + file + ": " + e);
            deleteQuietly(file);
            return;
        }
        String dir = record.get("dir");
        if (dir != null) {
            deleteRecursively(Path.of(dir));
        }
        deleteQuietly(file);
    }

    /** Child JVM logs are kept for post-mortems, but not forever. */
    private static void deleteOldJvmLogs() {
        if (!Files.isDirectory(JVM_LOG_DIR)) {
            return;
        }
        Instant cutoff = Instant.now().minus(JVM_LOG_RETENTION);
        try (DirectoryStream<Path> logs = Files.newDirectoryStream(JVM_LOG_DIR, "*.log")) {
            for (Path log : logs) {
                if (Files.getLastModifiedTime(log).toInstant().isBefore(cutoff)) {
                    deleteQuietly(log);
                }
            }
        } catch (IOException e) {
            System.err.println("relock-testkit: cannot prune " + JVM_LOG_DIR + ": " + e);
        }
    }

    private static boolean isSameProcessAlive(long pid, String recordedStart) {
        Optional<ProcessHandle> handle = ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
        if (handle.isEmpty() || Signals.isZombie(pid)) {
            return false;
        }
        String actualStart = startMillis(handle.get());
        return recordedStart == null || recordedStart.isEmpty() || actualStart.isEmpty()
                || recordedStart.equals(actualStart);
    }

    private static String startMillis(ProcessHandle handle) {
        return handle.info().startInstant().map(Instant::toEpochMilli).map(String::valueOf).orElse("");
    }

    private static Map<String, String> parse(String content) {
        Map<String, String> values = new HashMap<>();
        for (String line : content.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                values.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        return values;
    }

    private static void killAndAwait(ProcessHandle handle) {
        handle.destroyForcibly();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (Signals.isAlive(handle.pid())) {
            if (System.nanoTime() - deadline > 0) {
                System.err.println("relock-testkit: leftover process " + handle.pid() + " did not exit");
                return;
            }
            try {
                TimeUnit.MILLISECONDS.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static void killEverything() {
        for (Process process : LIVE) {
            process.destroyForcibly();
        }
        for (Process process : LIVE) {
            try {
                process.waitFor(2, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        for (Path path : OWNED_PATHS) {
            deleteRecursively(path);
        }
    }

    /** Deletes a file or directory tree, but never anything outside {@code java.io.tmpdir}. */
    static void deleteRecursively(Path root) {
        Path absolute = root.toAbsolutePath().normalize();
        Path tmp = Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath().normalize();
        if (!absolute.startsWith(tmp) || absolute.equals(tmp) || !Files.exists(absolute)) {
            return;
        }
        try {
            Files.walkFileTree(absolute, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                    deleteQuietly(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException exc) {
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException exc) {
                    deleteQuietly(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            System.err.println("relock-testkit: cannot delete " + absolute + ": " + e);
        }
    }

    private static void deleteQuietly(Path path) {
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            // Best effort: a file we cannot delete is left for the OS's temp cleaner.
        }
    }
}

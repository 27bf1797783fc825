package io.relock.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a short-lived helper program ({@code kill}, {@code openssl}) and hands back what it printed. */
final class ExternalCommand {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private ExternalCommand() {
    }

    /** The outcome of one run: exit code and combined stdout/stderr. */
    record Result(int exitCode, String output) {
        boolean succeeded() {
            return exitCode == 0;
        }
    }

    /**
     * Runs {@code command} in {@code workDir} (or the current directory when null) and waits for it.
     *
     * @throws UncheckedIOException if the program cannot be started (for example, not installed)
     * @throws IllegalStateException if it does not finish within 30 seconds
     */
    static Result run(Path workDir, List<String> command) {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        if (workDir != null) {
            builder.directory(workDir.toFile());
        }
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + command.get(0) + ": " + e.getMessage(), e);
        }
        try (InputStream out = process.getInputStream()) {
            // Reading to EOF before waiting keeps a chatty program from blocking on a full pipe.
            String output = new String(out.readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not finish within " + TIMEOUT);
            }
            return new Result(process.exitValue(), output);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + command.get(0), e);
        }
    }

    /** Runs {@code command} and fails with its output unless it exits with 0. */
    static String runOrFail(Path workDir, List<String> command) {
        Result result = run(workDir, command);
        if (!result.succeeded()) {
            throw new IllegalStateException(String.join(" ", command) + " exited with " + result.exitCode()
                    + ": " + result.output().strip());
        }
        return result.output();
    }
}

package io.relock.torture;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;

/**
 * Appends the events of one process to its history file, one JSON line each, handed to the
 * operating system at once: a process killed with SIGKILL leaves every event it recorded. Thread-safe.
 */
final class HistoryWriter implements AutoCloseable {
  private final BufferedWriter out;
  private final long pid = ProcessHandle.current().pid();
  private final String proc;

  HistoryWriter(Path file, String proc) {
    this.proc = proc;
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
      this.out = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open history file " + file, e);
    }
  }

  /** Records an event stamped now, by the calling thread. */
  Event record(String kind, String lock, String hold, long token, Map<String, Object> data) {
    return record(System.nanoTime(), kind, lock, hold, token, data);
  }

  /** Records an event that happened at {@code monoNanos} (the wall clock is taken now). */
  Event record(long monoNanos, String kind, String lock, String hold, long token, Map<String, Object> data) {
    Event e = new Event(System.currentTimeMillis(), monoNanos, pid, proc, Thread.currentThread().getName(),
        kind, lock, hold, token, data);
    String line = e.toJson();
    synchronized (out) {
      try {
        out.write(line);
        out.newLine();
        out.flush();
      } catch (IOException ex) {
        throw new UncheckedIOException("cannot write the history of " + proc, ex);
      }
    }
    return e;
  }

  /** A map of alternating keys and values, which may be null (null values are left out of the line). */
  static Map<String, Object> fields(Object... keysAndValues) {
    Map<String, Object> m = new java.util.LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      m.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return m;
  }

  @Override
  public void close() {
    synchronized (out) {
      try {
        out.close();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot close the history of " + proc, e);
      }
    }
  }
}

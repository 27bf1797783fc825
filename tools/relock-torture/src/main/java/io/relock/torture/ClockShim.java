package io.relock.torture;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The clock-step library of the {@code clock-step-master} runs: {@code clockstep.c} (a resource of
 * this module) built with the machine's C compiler into a library that redis-server loads with
 * {@code LD_PRELOAD}, after which its wall clock is the real one plus the milliseconds written in
 * the file its {@code RELOCK_CLOCK_OFFSET_FILE} names ({@link #step}). Built once per output
 * directory; where no C compiler is found, {@link #build} says why, and the suite skips those runs.
 */
final class ClockShim {
  /** The environment variable that names a server's offset file. */
  static final String OFFSET_FILE_VARIABLE = "RELOCK_CLOCK_OFFSET_FILE";
  private static final List<String> COMPILERS = List.of("cc", "gcc", "clang");

  private ClockShim() {}

  /** The library, or why it cannot be built. */
  record Build(Path library, String unavailable) {}

  /** Builds the library into {@code dir} (or finds it built there). */
  static synchronized Build build(Path dir) {
    Path library = dir.resolve("libclockstep.so");
    if (Files.isRegularFile(library)) {
      return new Build(library, null);
    }
    String compiler = COMPILERS.stream().filter(ClockShim::onPath).findFirst().orElse(null);
    if (compiler == null) {
      return new Build(null, "the clock-step runs need a C compiler (cc, gcc or clang) to build their preload library;"
          + " none is on the PATH (Debian: apt-get install gcc)");
    }
    try {
      Files.createDirectories(dir);
      Path source = dir.resolve("clockstep.c");
      try (InputStream in = ClockShim.class.getResourceAsStream("clockstep.c")) {
        if (in == null) {
          throw new IllegalStateException("resource clockstep.c is missing");
        }
        Files.copy(in, source, StandardCopyOption.REPLACE_EXISTING);
      }
      Path building = dir.resolve("libclockstep.so.tmp");
      Process p = new ProcessBuilder(compiler, "-shared", "-fPIC", "-O2", "-o", building.toString(), source.toString())
          .redirectErrorStream(true).start();
      String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        p.destroyForcibly();
        return new Build(null, compiler + " could not build the clock-step library: " + output);
      }
      Files.move(building, library, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      return new Build(library, null);
    } catch (IOException e) {
      return new Build(null, "the clock-step library could not be built: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while building the clock-step library", e);
    }
  }

  private static boolean onPath(String command) {
    String path = System.getenv("PATH");
    if (path == null) {
      return false;
    }
    for (String d : path.split(java.io.File.pathSeparator)) {
      if (!d.isEmpty() && Files.isExecutable(Path.of(d, command))) {
        return true;
      }
    }
    return false;
  }

  /** Writes an offset file of 0 ms, for a server about to start. */
  static void reset(Path offsetFile) {
    write(offsetFile, 0);
  }

  /** Steps the server clock that {@code offsetFile} drives by {@code millis} more; returns the new offset. */
  static long step(Path offsetFile, long millis) {
    long now;
    try {
      now = Long.parseLong(Files.readString(offsetFile, StandardCharsets.UTF_8).trim());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + offsetFile, e);
    }
    write(offsetFile, now + millis);
    return now + millis;
  }

  /** Replaces the file in one move, so that the library never reads half a number. */
  private static void write(Path offsetFile, long millis) {
    try {
      Path tmp = offsetFile.resolveSibling(offsetFile.getFileName() + ".tmp");
      Files.writeString(tmp, Long.toString(millis), StandardCharsets.UTF_8);
      Files.move(tmp, offsetFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + offsetFile, e);
    }
  }
}

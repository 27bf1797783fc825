package io.relock.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where a worker's CPU went, from the execution samples of a JFR recording (see "Profiling a
 * worker" in tools/relock-bench/README.md): the share of samples whose top frame is in each layer (relock's
 * engine, its driver, Lettuce, Netty, the JDK...), the share whose stack passes through it at all,
 * and the methods most often on top. Read with the JDK's own {@link RecordingFile}.
 */
final class JfrSummary {

  /** Layers by package prefix, first match wins: relock's own before what it calls. */
  private static final Map<String, String> LAYERS = new LinkedHashMap<>();

  static {
    LAYERS.put("io.relock.internal.", "relock engine");
    LAYERS.put("io.relock.lettuce.", "relock's Lettuce driver");
    LAYERS.put("io.relock.jedis.", "relock's Jedis driver");
    LAYERS.put("io.relock.bench.", "bench loop");
    LAYERS.put("io.relock.", "relock API");
    LAYERS.put("io.lettuce.", "Lettuce");
    LAYERS.put("io.netty.", "Netty");
    LAYERS.put("redis.clients.", "Jedis");
    LAYERS.put("java.util.concurrent.", "JDK concurrency");
    LAYERS.put("java.", "JDK, other");
    LAYERS.put("jdk.", "JDK, other");
    LAYERS.put("sun.", "JDK, other");
  }

  private JfrSummary() {}

  static String layer(String typeName) {
    for (Map.Entry<String, String> e : LAYERS.entrySet()) {
      if (typeName.startsWith(e.getKey())) {
        return e.getValue();
      }
    }
    return "other";
  }

  /**
   * What one recording shows: its execution samples, and the tables of layers and of the methods
   * most often on top (empty when it has no samples).
   */
  record Profile(Path file, int samples, Table layers, Table methods) {}

  /** Prints the summary of each recording, {@code top} methods each. */
  static void print(List<Path> recordings, int top, PrintStream out) {
    for (Profile p : profiles(recordings, top)) {
      out.print(String.format(Locale.ROOT, "%s: %,d execution samples%n", p.file(), p.samples()));
      if (p.samples() > 0) {
        out.print(p.layers().toText() + p.methods().toText());
      }
    }
  }

  /** The profile of each recording, {@code top} methods each. */
  static List<Profile> profiles(List<Path> recordings, int top) {
    List<Profile> out = new ArrayList<>();
    for (Path file : recordings) {
      Map<String, Integer> self = new HashMap<>();
      Map<String, Integer> through = new HashMap<>();
      Map<String, Integer> methods = new HashMap<>();
      int samples = 0;
      try (RecordingFile recording = new RecordingFile(file)) {
        while (recording.hasMoreEvents()) {
          RecordedEvent event = recording.readEvent();
          RecordedStackTrace stack = event.getStackTrace();
          if (!event.getEventType().getName().equals("jdk.ExecutionSample") || stack == null
              || stack.getFrames().isEmpty()) {
            continue;
          }
          samples++;
          List<RecordedFrame> frames = stack.getFrames();
          RecordedFrame first = frames.get(0);
          String type = first.getMethod().getType().getName();
          self.merge(layer(type), 1, Integer::sum);
          methods.merge(type + "." + first.getMethod().getName(), 1, Integer::sum);
          Set<String> seen = new HashSet<>();
          for (RecordedFrame f : frames) {
            if (seen.add(layer(f.getMethod().getType().getName()))) {
              through.merge(layer(f.getMethod().getType().getName()), 1, Integer::sum);
            }
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("could not read the recording " + file, e);
      }
      Table layers = new Table("Layers of " + file.getFileName(), List.of("layer", "on top %", "in the stack %"));
      for (Map.Entry<String, Integer> e : sortedByCount(self)) {
        layers.add(e.getKey(), percent(e.getValue(), samples), percent(through.get(e.getKey()), samples));
      }
      Table hot = new Table("Methods most often on top in " + file.getFileName(), List.of("on top %", "method"));
      for (Map.Entry<String, Integer> e : sortedByCount(methods).subList(0, Math.min(top, methods.size()))) {
        hot.add(percent(e.getValue(), samples), e.getKey());
      }
      out.add(new Profile(file, samples, layers, hot));
    }
    return out;
  }

  private static List<Map.Entry<String, Integer>> sortedByCount(Map<String, Integer> counts) {
    return counts.entrySet().stream()
        .sorted(Map.Entry.<String, Integer>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
        .toList();
  }

  private static String percent(int n, int of) {
    return String.format(Locale.ROOT, "%.1f", 100.0 * n / of);
  }
}

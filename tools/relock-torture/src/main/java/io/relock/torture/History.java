package io.relock.torture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A run's events, merged from every history file of the run directory and ordered by the
 * monotonic clock. A line that does not parse is skipped and counted (it can only be the last line
 * of a process killed while writing it).
 */
record History(List<Event> events, int unreadableLines) {

  static History of(List<Event> events) {
    List<Event> sorted = new ArrayList<>(events);
    sorted.sort(Comparator.comparingLong(Event::monoNanos));
    return new History(List.copyOf(sorted), 0);
  }

  static History read(Path runDir) {
    List<Event> events = new ArrayList<>();
    int bad = 0;
    try (Stream<Path> files = Files.list(runDir)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".jsonl")).sorted().toList()) {
        for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
          if (line.isBlank()) {
            continue;
          }
          try {
            events.add(Event.fromJson(line));
          } catch (IllegalArgumentException | ClassCastException | NullPointerException e) {
            bad++;
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the histories in " + runDir, e);
    }
    History h = of(events);
    return new History(h.events, bad);
  }

  Stream<Event> ofKind(String kind) {
    return events.stream().filter(e -> e.kind().equals(kind));
  }
}

package io.relock.torture;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The fault windows of a run, paired from the nemesis's start and end events, and the run's time
 * origin for printing times as seconds since the first event.
 */
final class Timeline {

  /** A fault in force from {@code start} to {@code end} (monotonic ns); target is a worker name or redis/all. */
  record Window(String fault, String target, long start, long end) {
    long length() {
      return end - start;
    }
  }

  final long origin;
  final List<Window> windows;

  private Timeline(long origin, List<Window> windows) {
    this.origin = origin;
    this.windows = windows;
  }

  static Timeline of(History history) {
    long origin = history.events().isEmpty() ? 0 : history.events().get(0).monoNanos();
    Map<String, Event> open = new HashMap<>();
    List<Window> windows = new ArrayList<>();
    for (Event e : history.events()) {
      String key = e.text("fault") + " " + e.text("target");
      if (e.kind().equals(Event.FAULT_START)) {
        open.put(key, e);
      } else if (e.kind().equals(Event.FAULT_END)) {
        Event s = open.remove(key);
        if (s != null) {
          windows.add(new Window(s.text("fault"), s.text("target"), s.monoNanos(), e.monoNanos()));
        }
      }
    }
    return new Timeline(origin, List.copyOf(windows));
  }

  /** {@code mono} as "+12.345 s" since the first event of the run. */
  String at(long mono) {
    return String.format(Locale.ROOT, "+%.3f s", (mono - origin) / 1e9);
  }
}

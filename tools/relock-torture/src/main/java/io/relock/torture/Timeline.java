package io.relock.torture;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The fault windows of a run, paired from the nemesis's start and end events, the failovers of a
 * Sentinel run, the holds a Redlock master's restart erased, and the run's time origin for
 * printing times as seconds since the first event.
 */
final class Timeline {

  /** A fault in force from {@code start} to {@code end} (monotonic ns); target is a worker name or redis/all. */
  record Window(String fault, String target, long start, long end) {
    long length() {
      return end - start;
    }
  }

  /**
   * One failover of the Sentinel topology: the primary killed at {@code kill} (the process was gone
   * by then), the sentinels agreed on the promoted replica at {@code promoted} ({@link Long#MAX_VALUE}
   * if they never did). {@code cut} is when replication was cut before the kill (in force from that
   * moment), or -1: a call sent to the primary after {@code cut} and answered before {@code kill}
   * ran on a primary whose writes no replica ever saw, so the promoted replica never had it.
   */
  record Failover(long cut, long kill, long promoted) {
    boolean hole() {
      return cut >= 0;
    }

    long millis() {
      return promoted == Long.MAX_VALUE ? -1 : (promoted - kill) / 1_000_000;
    }
  }

  /**
   * A hold (lock and token) that a fault on Redlock master {@code master} erased there, recorded at
   * {@code at}: its restart without its data (recorded once the master was back) or a step of its
   * clock. {@code fault} is the fault's id. Only the restart with relock's delayed restart is
   * guarded: the master stays out of every majority until the erased hold has ended or its holder
   * was told. The control restart takes part at once, and relock cannot notice a clock step.
   */
  record Erasure(String lock, long token, String master, long at, String fault) {
    boolean guarded() {
      return Fault.RESTART_MASTER.id.equals(fault);
    }

    /** "the restart of m1", "the restart of m1 (no delayed restart)", "the clock step of m1". */
    String cause() {
      return Fault.CLOCK_STEP_MASTER.id.equals(fault) ? "the clock step of " + master
          : "the restart of " + master + (guarded() ? "" : " (no delayed restart)");
    }
  }

  final long origin;
  final List<Window> windows;
  final List<Failover> failovers;
  final List<Erasure> erasures;

  private Timeline(long origin, List<Window> windows, List<Failover> failovers, List<Erasure> erasures) {
    this.origin = origin;
    this.windows = windows;
    this.failovers = failovers;
    this.erasures = erasures;
  }

  static Timeline of(History history) {
    long origin = history.events().isEmpty() ? 0 : history.events().get(0).monoNanos();
    Map<String, Event> open = new HashMap<>();
    List<Window> windows = new ArrayList<>();
    List<Failover> failovers = new ArrayList<>();
    List<Erasure> erasures = new ArrayList<>();
    Event killed = null;
    for (Event e : history.events()) {
      if (e.kind().equals(Event.ERASED)) {
        erasures.add(new Erasure(e.lock(), e.token(), e.text("master"), e.monoNanos(), e.text("fault")));
        continue;
      }
      if (e.kind().equals(Event.PRIMARY_KILLED)) {
        if (killed != null) {
          failovers.add(new Failover(killed.number("cut", -1), killed.monoNanos(), Long.MAX_VALUE));
        }
        killed = e;
        continue;
      }
      if (e.kind().equals(Event.PROMOTED) && killed != null) {
        failovers.add(new Failover(killed.number("cut", -1), killed.monoNanos(), e.monoNanos()));
        killed = null;
        continue;
      }
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
    if (killed != null) {
      failovers.add(new Failover(killed.number("cut", -1), killed.monoNanos(), Long.MAX_VALUE));
    }
    return new Timeline(origin, List.copyOf(windows), List.copyOf(failovers), List.copyOf(erasures));
  }

  /**
   * The failover whose hole erased {@code h}: its request was sent after replication was cut and it
   * was granted before the primary was killed (so by the old primary, and the promoted replica
   * never saw it), and its holder still acted as the holder when the primary died. Null if none.
   */
  Failover erasedBy(Hold h) {
    for (Failover f : failovers) {
      if (f.hole() && h.wasAcquired() && h.sent > f.cut() && h.acquired < f.kill() && h.end > f.kill()) {
        return f;
      }
    }
    return null;
  }

  /**
   * The restart of a Redlock master that erased {@code h}: the hold's lock and token were on the
   * master and on fewer than a majority of the others, and its holder still acted as the holder
   * once the master was back. Null if none.
   */
  Erasure erasureOf(Hold h) {
    for (Erasure e : erasures) {
      if (h.wasAcquired() && e.lock().equals(h.lock) && e.token() == h.token && h.end > e.at()) {
        return e;
      }
    }
    return null;
  }

  /** {@code mono} as "+12.345 s" since the first event of the run. */
  String at(long mono) {
    return String.format(Locale.ROOT, "+%.3f s", (mono - origin) / 1e9);
  }
}

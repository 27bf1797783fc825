package io.relock.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * What each acquisition of a load thread takes: the exclusive lock of the load scenarios, a
 * read-write lock's read or write lane (picked at random per acquisition, {@code readPercent} of
 * them reads), or a permit of a semaphore with {@code permits} permits. The lock family's rows
 * ({@code ./relock bench --family}) are named after their workload: {@code rw-read-heavy} (90%
 * reads), {@code rw-write-heavy} (10% reads), {@code rw-<N>} (N% reads) and {@code semaphore-<N>}
 * (N permits).
 *
 * @param kind which kind of lock
 * @param readPercent for {@link Kind#READ_WRITE}, the share of acquisitions that are reads, 0 to 100
 * @param permits for {@link Kind#SEMAPHORE}, how many holders at once; 1 otherwise
 */
record Workload(Kind kind, int readPercent, int permits) {

  /** The kinds of lock a workload takes. */
  enum Kind { EXCLUSIVE, READ_WRITE, SEMAPHORE }

  /** The lock of the load scenarios: one holder at a time. */
  static final Workload EXCLUSIVE = new Workload(Kind.EXCLUSIVE, 0, 1);

  /** Reads share of the read-heavy row: the case a read-write lock is for. */
  static final int READ_HEAVY_PERCENT = 90;
  /** Reads share of the write-heavy row: mostly exclusive hand-overs, with some reader groups between. */
  static final int WRITE_HEAVY_PERCENT = 10;

  /** The rows {@code --family} runs when none are named, in this order (issue 12's). */
  static final List<String> FAMILY_ROWS = List.of("rw-read-heavy", "rw-write-heavy", "semaphore-5");

  Workload {
    if (readPercent < 0 || readPercent > 100) {
      throw new IllegalArgumentException("a read share is 0 to 100 per cent, not " + readPercent);
    }
    if (permits < 1) {
      throw new IllegalArgumentException("a semaphore needs at least 1 permit, not " + permits);
    }
    if (kind != Kind.READ_WRITE && readPercent != 0) {
      throw new IllegalArgumentException("only a read-write workload has reads");
    }
    if (kind != Kind.SEMAPHORE && permits != 1) {
      throw new IllegalArgumentException("only a semaphore has several permits");
    }
  }

  static Workload readWrite(int readPercent) {
    return new Workload(Kind.READ_WRITE, readPercent, 1);
  }

  static Workload semaphore(int permits) {
    return new Workload(Kind.SEMAPHORE, 0, permits);
  }

  /**
   * The workload a family row's name gives.
   *
   * @throws IllegalArgumentException naming the forms that are known
   */
  static Workload parse(String name) {
    String n = name.trim().toLowerCase(Locale.ROOT);
    try {
      if (n.equals("rw-read-heavy")) {
        return readWrite(READ_HEAVY_PERCENT);
      }
      if (n.equals("rw-write-heavy")) {
        return readWrite(WRITE_HEAVY_PERCENT);
      }
      if (n.startsWith("rw-")) {
        return readWrite(Integer.parseInt(n.substring(3)));
      }
      if (n.startsWith("semaphore-")) {
        return semaphore(Integer.parseInt(n.substring("semaphore-".length())));
      }
    } catch (NumberFormatException e) {
      // Falls through to the message below.
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("family row '" + name + "': " + e.getMessage(), e);
    }
    throw new IllegalArgumentException("unknown family row '" + name + "'; known: rw-read-heavy (90% reads),"
        + " rw-write-heavy (10% reads), rw-<N> (N% reads), semaphore-<N> (N permits)");
  }

  /** Each of {@code names} parsed, in order, duplicates refused. */
  static List<Workload> parseAll(List<String> names) {
    List<Workload> out = new ArrayList<>();
    for (String name : names) {
      Workload w = parse(name);
      if (out.contains(w)) {
        throw new IllegalArgumentException("family row '" + name + "' named twice");
      }
      out.add(w);
    }
    return out;
  }

  /** The row's name: the one {@link #parse} reads back. */
  String id() {
    return switch (kind) {
      case EXCLUSIVE -> "exclusive";
      case READ_WRITE -> readPercent == READ_HEAVY_PERCENT ? "rw-read-heavy"
          : readPercent == WRITE_HEAVY_PERCENT ? "rw-write-heavy" : "rw-" + readPercent;
      case SEMAPHORE -> "semaphore-" + permits;
    };
  }

  /** What it takes, for tables and the docs. */
  String describe() {
    return switch (kind) {
      case EXCLUSIVE -> "exclusive lock";
      case READ_WRITE -> "read-write lock, " + readPercent + "% reads";
      case SEMAPHORE -> "semaphore, " + permits + " permits";
    };
  }

  /**
   * Whether the next acquisition of a thread is a read, drawn from that thread's own generator: each
   * acquisition independently a read with probability {@code readPercent} / 100, so readers and
   * writers arrive mixed, as they would from independent callers, and no thread is a writer only.
   */
  boolean nextIsRead(SplittableRandom random) {
    return kind == Kind.READ_WRITE && random.nextInt(100) < readPercent;
  }

  Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("kind", kind.name().toLowerCase(Locale.ROOT));
    m.put("read_percent", readPercent);
    m.put("permits", permits);
    return m;
  }

  /** The workload {@link #toJson} wrote; {@link #EXCLUSIVE} when {@code json} is null (older commands). */
  static Workload fromJson(Map<?, ?> json) {
    if (json == null) {
      return EXCLUSIVE;
    }
    return new Workload(Kind.valueOf(((String) json.get("kind")).toUpperCase(Locale.ROOT)),
        ((Number) json.get("read_percent")).intValue(), ((Number) json.get("permits")).intValue());
  }
}

package io.relock.internal;

import io.relock.LockInfo;
import io.relock.RelockException;
import io.relock.spi.RedisDriver;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * {@link io.relock.Relock#inspect} and {@link io.relock.Relock#list}: reads locks without changing
 * them, through {@code lock_info.lua} and {@code list_locks.lua}. With those two scripts (and
 * {@code lock_view.lua}, which they share), this class is the one place where inspection knows how
 * a lock is laid out in Redis: it builds the scripts' keys and arguments and turns their replies
 * into {@link LockInfo}s.
 *
 * <p>Listing pages through {@code SCAN}, never {@code KEYS}: each call looks at {@value #PAGE}
 * keys' worth of one server's keyspace and reads the held locks among them, so that Redis never
 * runs one long command. On a Redis Cluster every primary is scanned, each with its own cursor;
 * a primary that appears in the middle (a failover) is scanned from the start, and a lock met
 * twice is listed once.
 *
 * <p>On Redlock each master is asked on its own, and a lock counts as held by the owner a majority
 * of all masters name, as an acquisition counts it; what a minority holds (an acquisition under
 * way, or a give-back not yet sent) is left out. Fewer than a majority answering fails, naming
 * each master and why.
 */
public final class LockInspector {
  /** SCAN's COUNT per call: keeps each call short, a fraction of a millisecond on Redis. */
  static final int PAGE = 500;

  private final RedisDriver driver;
  private final ScriptRunner scripts;
  private final RelockSettings settings;

  LockInspector(RedisDriver driver, ScriptRunner scripts, RelockSettings settings) {
    this.driver = driver;
    this.scripts = scripts;
    this.settings = settings;
  }

  /** See {@link io.relock.Relock#inspect}. */
  public LockInfo inspect(String name) {
    LockKeys keys = LockKeys.of(settings.keyPrefix(), name);
    if (driver instanceof QuorumDriver redlock) {
      return inspectRedlock(redlock, keys);
    }
    String lock = keys.lock();
    List<Object> reply = Waiting.await(scripts.run(Scripts.LOCK_INFO,
        List.of(lock, lock + ":fence", lock + ":q", lock + ":qi"), List.of("queue"), name));
    return view(name, reply, 0);
  }

  /** See {@link io.relock.Relock#list}. */
  public List<LockInfo> list(String namePattern) {
    NameGlob glob = new NameGlob(namePattern);
    String match = glob.keyPattern(settings.keyPrefix());
    Map<String, LockInfo> found = new TreeMap<>();
    if (driver instanceof QuorumDriver redlock) {
      listRedlock(redlock, match, namePattern).forEach(info -> found.put(info.name(), info));
    } else {
      // Each server's cursor by the driver's name for it; one that appears later starts at '0'.
      Map<String, String> cursors = new java.util.concurrent.ConcurrentHashMap<>();
      boolean more = true;
      while (more) {
        Map<String, List<Object>> pages = Waiting.await(scripts.runOnEveryPrimary(Scripts.LIST_LOCKS,
            server -> {
              String cursor = cursors.computeIfAbsent(server, s -> "0");
              return cursor.equals(DONE) ? null : List.of(cursor, match, Integer.toString(PAGE), "queue", "");
            }, namePattern));
        more = false;
        for (Map.Entry<String, List<Object>> page : pages.entrySet()) {
          String next = (String) page.getValue().get(0);
          cursors.put(page.getKey(), "0".equals(next) ? DONE : next);
          more |= !"0".equals(next);
          for (Object entry : page.getValue().subList(1, page.getValue().size())) {
            LockInfo info = listed((List<?>) entry);
            found.put(info.name(), info);
          }
        }
      }
    }
    // Redis matched the wider key pattern; the glob decides on the names.
    found.keySet().removeIf(name -> !glob.matches(name));
    return List.copyOf(found.values());
  }

  /** A server whose scan has ended. Never a SCAN cursor, which is a number. */
  private static final String DONE = "done";

  private LockInfo listed(List<?> entry) {
    String key = (String) entry.get(0);
    return view(nameOf(settings.keyPrefix(), key), entry, 1);
  }

  /** A {@link LockInfo} from {@code read_lock}'s reply (see lock_view.lua), starting at {@code from}. */
  private static LockInfo view(String name, List<?> reply, int from) {
    String owner = (String) reply.get(from);
    long last = number(reply, from + 4);
    List<LockInfo.Waiter> waiters = new ArrayList<>();
    for (Object waiter : reply.subList(from + 6, reply.size())) {
      waiters.add(new LockInfo.Waiter((String) waiter, clientOf((String) waiter)));
    }
    if (owner.isEmpty()) {
      return new LockInfo(name, Optional.empty(), waiters, last);
    }
    return new LockInfo(name, Optional.of(holder(owner, number(reply, from + 1), number(reply, from + 2),
        number(reply, from + 3), number(reply, from + 5))), waiters, Math.max(last, number(reply, from + 2)));
  }

  /** @param sinceMicros when the hold was granted, server time in microseconds; 0 if unknown */
  private static LockInfo.Holder holder(String owner, long count, long token, long pttl, long sinceMicros) {
    Duration remaining = pttl == -1 ? ChronoUnit.FOREVER.getDuration() : Duration.ofMillis(Math.max(0, pttl));
    Optional<java.time.Instant> since = sinceMicros <= 0 ? Optional.empty()
        : Optional.of(java.time.Instant.EPOCH.plus(sinceMicros, ChronoUnit.MICROS));
    return new LockInfo.Holder(owner, clientOf(owner), (int) count, token, remaining, since);
  }

  private static long number(List<?> reply, int i) {
    Object v = reply.get(i);
    if (v instanceof Long n) {
      return n;
    }
    throw new ScriptRunner.UnexpectedReplyException("unexpected reply from an inspection script: " + reply, null);
  }

  /** Owner ids are {@code <client id>:<owner within the client>}. */
  static String clientOf(String ownerId) {
    int colon = ownerId.indexOf(':');
    return colon < 0 ? ownerId : ownerId.substring(0, colon);
  }

  // ---- lock names (see LockKeys) ----------------------------------------------------------------

  /** The lock name stored at {@code lockKey}, undoing {@link LockKeys#encode}. */
  static String nameOf(String prefix, String lockKey) {
    String encoded = lockKey.substring(prefix.length() + 1, lockKey.length() - 1);
    int tagEnd = encoded.indexOf("}{"); // "<tag>}{<name>": a name with a hash tag of its own
    if (tagEnd >= 0) {
      encoded = encoded.substring(tagEnd + 2);
    }
    StringBuilder name = new StringBuilder(encoded.length());
    for (int i = 0; i < encoded.length(); i++) {
      char c = encoded.charAt(i);
      int code = c == '%' && i + 2 < encoded.length() ? hex(encoded.substring(i + 1, i + 3)) : -1;
      if (code >= 0) {
        name.append((char) code);
        i += 2;
      } else {
        name.append(c);
      }
    }
    return name.toString();
  }

  private static int hex(String two) {
    try {
      return Integer.parseInt(two, 16);
    } catch (NumberFormatException notEncoded) {
      return -1;
    }
  }

  // ---- Redlock --------------------------------------------------------------------------------

  /** What one master said about one lock (read_lock's reply), or null if it did not answer. */
  private record NodeView(String node, List<?> reply, Throwable error) {}

  private LockInfo inspectRedlock(QuorumDriver redlock, LockKeys keys) {
    List<String> nodeKeys = List.of(keys.lock(), redlock.fenceKey(), keys.lock() + ":q", keys.lock() + ":qi");
    List<CompletableFuture<NodeView>> asked = new ArrayList<>();
    for (QuorumDriver.Node n : redlock.nodes()) {
      asked.add(n.scripts().run(Scripts.LOCK_INFO, nodeKeys, List.of("node"), keys.name())
          .handle((reply, error) -> new NodeView(n.name(), reply, error)));
    }
    List<NodeView> views = asked.stream().map(CompletableFuture::join).toList();
    requireMajority(redlock, views, keys.name());
    return combine(redlock, keys.name(), views);
  }

  private List<LockInfo> listRedlock(QuorumDriver redlock, String match, String namePattern) {
    // Each master is scanned to its end on its own; a lock it does not list is free there.
    List<CompletableFuture<Map<String, List<?>>>> scans = new ArrayList<>();
    for (QuorumDriver.Node n : redlock.nodes()) {
      scans.add(scanNode(n, match, redlock.fenceKey(), "0", new HashMap<>(), namePattern));
    }
    List<String> failed = new ArrayList<>();
    List<Map<String, List<?>>> listed = new ArrayList<>();
    for (int i = 0; i < scans.size(); i++) {
      try {
        listed.add(scans.get(i).join());
      } catch (RuntimeException e) {
        failed.add(redlock.nodes().get(i).name() + ": " + Waiting.unchecked(e).getMessage());
      }
    }
    if (listed.size() < redlock.majority()) {
      throw new RelockException("only " + listed.size() + " of " + redlock.nodes().size()
          + " Redlock masters could be listed for '" + namePattern + "': " + String.join("; ", failed));
    }
    java.util.Set<String> names = new java.util.TreeSet<>();
    listed.forEach(m -> names.addAll(m.keySet()));
    List<LockInfo> held = new ArrayList<>();
    for (String key : names) {
      List<NodeView> views = new ArrayList<>();
      for (Map<String, List<?>> m : listed) {
        List<?> reply = m.get(key);
        views.add(new NodeView("", reply != null ? reply : List.of("", 0L, 0L, -2L, 0L, 0L), null));
      }
      LockInfo info = combine(redlock, nameOf(settings.keyPrefix(), key), views);
      if (info.isHeld()) {
        held.add(info);
      }
    }
    return held;
  }

  private CompletableFuture<Map<String, List<?>>> scanNode(QuorumDriver.Node n, String match, String fenceKey,
      String cursor, Map<String, List<?>> found, String what) {
    return n.scripts().run(Scripts.LIST_LOCKS, List.of(), List.of(cursor, match, Integer.toString(PAGE), "node",
        fenceKey), what).thenCompose(page -> {
          for (Object entry : page.subList(1, page.size())) {
            List<?> e = (List<?>) entry;
            found.put((String) e.get(0), e.subList(1, e.size()));
          }
          String next = (String) page.get(0);
          return "0".equals(next) ? CompletableFuture.completedFuture(found)
              : scanNode(n, match, fenceKey, next, found, what);
        });
  }

  private static void requireMajority(QuorumDriver redlock, List<NodeView> views, String name) {
    long answered = views.stream().filter(v -> v.reply() != null).count();
    if (answered < redlock.majority()) {
      throw new RelockException("only " + answered + " of " + views.size() + " Redlock masters answered for lock '"
          + name + "': " + String.join("; ", views.stream().filter(v -> v.error() != null)
              .map(v -> v.node() + ": " + Waiting.unchecked(v.error()).getMessage()).toList()));
    }
  }

  /**
   * The lock as a majority of all masters see it: held by the owner a majority names, with the
   * largest count and token among them, for as long as a majority still holds it.
   */
  private static LockInfo combine(QuorumDriver redlock, String name, List<NodeView> views) {
    long last = 0;
    Map<String, List<List<?>>> byOwner = new HashMap<>();
    for (NodeView v : views) {
      if (v.reply() == null) {
        continue;
      }
      last = Math.max(last, number(v.reply(), 4));
      String owner = (String) v.reply().get(0);
      if (!owner.isEmpty()) {
        byOwner.computeIfAbsent(owner, o -> new ArrayList<>()).add(v.reply());
      }
    }
    for (Map.Entry<String, List<List<?>>> e : byOwner.entrySet()) {
      List<List<?>> agreeing = e.getValue();
      if (agreeing.size() >= redlock.majority()) {
        long count = agreeing.stream().mapToLong(r -> number(r, 1)).max().orElse(1);
        long token = agreeing.stream().mapToLong(r -> number(r, 2)).max().orElse(0);
        long since = agreeing.stream().mapToLong(r -> number(r, 5)).max().orElse(0);
        // Held for as long as a majority holds it: the majority-th longest expiry (-1: none).
        List<Long> ttls = agreeing.stream().map(r -> number(r, 3)).map(t -> t == -1 ? Long.MAX_VALUE : t)
            .sorted(Comparator.reverseOrder()).toList();
        long pttl = ttls.get(redlock.majority() - 1) == Long.MAX_VALUE ? -1 : ttls.get(redlock.majority() - 1);
        return new LockInfo(name, Optional.of(holder(e.getKey(), count, token, pttl, since)), List.of(),
            Math.max(last, token));
      }
    }
    return new LockInfo(name, Optional.empty(), List.of(), last);
  }
}

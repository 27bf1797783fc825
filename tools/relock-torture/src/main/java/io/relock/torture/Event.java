package io.relock.torture;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One line of a history: something a worker thread or the nemesis did or saw, with the wall clock
 * (for people) and the monotonic clock (for ordering: {@code System.nanoTime()} is the system-wide
 * CLOCK_MONOTONIC on Linux, so it orders events across the processes of one machine and does not
 * jump with the wall clock).
 *
 * @param wallMillis wall clock, ms since the epoch
 * @param monoNanos monotonic clock, ns
 * @param pid the process that recorded it
 * @param proc the worker's name ({@code w1}, ...) or {@code nemesis}
 * @param thread the recording thread's name within the run
 * @param kind what happened; one of the constants of this class
 * @param lock the lock concerned, or null
 * @param hold the hold (one acquisition) concerned, or null
 * @param token the hold's fencing token, 0 if none or not known yet
 * @param data the kind's further fields
 */
record Event(long wallMillis, long monoNanos, long pid, String proc, String thread, String kind,
    String lock, String hold, long token, Map<String, Object> data) {

  /** History lines are flat objects of strings, whole numbers and booleans: no nesting, no fractions. */
  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(DeserializationFeature.USE_LONG_FOR_INTS)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  // Worker events, in the order a critical section records them.
  static final String ACQUIRE_SENT = "acquire_sent";
  static final String ACQUIRED = "acquired";
  static final String ACQUIRE_TIMEOUT = "acquire_timeout";
  static final String ACQUIRE_FAILED = "acquire_failed";
  /** data: fenced = ok|refused, value (fenced value, or the newer token if refused), wvalue, uvalue. */
  static final String READ = "read";
  /** data: fenced = accepted|refused|skipped, wonly = accepted|refused, base. */
  static final String WRITE = "write";
  static final String STORE_FAILED = "store_failed";
  /** From the onLost listener; data: valid = isValid() when it ran. */
  static final String LOST_NOTICE = "lost_notice";
  /** The worker walks away from a fixed lease without closing it, as a crashed holder would; data: valid. */
  static final String ABANDONED = "abandoned";
  /** Just before close(); data: valid = isValid() then. */
  static final String RELEASE_SENT = "release_sent";
  static final String RELEASED = "released";
  static final String RELEASE_LOST = "release_lost";
  static final String RELEASE_FAILED = "release_failed";
  /** An exception no relock method declares (a bug, here or in relock); data: error. */
  static final String UNEXPECTED = "unexpected";
  static final String WORKER_STARTED = "worker_started";
  static final String WORKER_STOPPED = "worker_stopped";

  // Nemesis events.
  /** data: fault, target (a worker name, or "redis"), detail. */
  static final String FAULT_START = "fault_start";
  static final String FAULT_END = "fault_end";
  /** A worker killed with SIGKILL; one event per lock it held (lock null if it held none). data: target. */
  static final String KILLED = "killed";
  /** The nemesis's own acquisition of a lock whose holder it killed; data: result = acquired|timeout. */
  static final String PROBE = "probe";
  /**
   * Sentinel topology: the nemesis killed the primary (SIGKILL, the process is gone). data: port,
   * and cut = the monotonic time replication was cut before it (failover-hole), absent if it was not.
   */
  static final String PRIMARY_KILLED = "primary_killed";
  /** Sentinel topology: the sentinels agree on the promoted replica. data: port, ms (since the kill). */
  static final String PROMOTED = "promoted";
  /** Sentinel topology: the killed node is back as a replica and in sync. data: port, ms (rejoin to sync). */
  static final String REJOINED = "rejoined";
  /**
   * Redlock topology: a hold the restart of a master without its data erased (its lock was on that
   * master and on fewer than a majority of the others, read just before the restart); recorded
   * once the master is back. lock, token; data: fault, master, owner.
   */
  static final String ERASED = "erased";
  /**
   * A lock key found on a lock server after every worker had stopped. lock; data: node (m0.. or
   * redis), nodes (how many lock servers there are), owner, gone_ms (when it was first seen gone,
   * in ms since the check began; absent if it was still there when the check gave up).
   */
  static final String LEFTOVER = "leftover";
  /** A nemesis step that failed (the harness, not relock); data: error. The nemesis stops there. */
  static final String NEMESIS_ERROR = "nemesis_error";

  Event {
    Map<String, Object> present = new LinkedHashMap<>();
    if (data != null) {
      data.forEach((k, v) -> {
        if (v != null) {
          present.put(k, v);
        }
      });
    }
    data = java.util.Collections.unmodifiableMap(present);
  }

  String text(String key) {
    Object v = data.get(key);
    return v == null ? null : v.toString();
  }

  long number(String key, long absent) {
    Object v = data.get(key);
    return v instanceof Number n ? n.longValue() : absent;
  }

  /** The boolean {@code key}, or null if absent. */
  Boolean flag(String key) {
    Object v = data.get(key);
    return v instanceof Boolean b ? b : null;
  }

  String toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("wall", wallMillis);
    m.put("mono", monoNanos);
    m.put("pid", pid);
    m.put("proc", proc);
    m.put("thread", thread);
    m.put("kind", kind);
    if (lock != null) {
      m.put("lock", lock);
    }
    if (hold != null) {
      m.put("hold", hold);
    }
    if (token != 0) {
      m.put("token", token);
    }
    new java.util.TreeMap<>(data).forEach(m::put);
    try {
      return JSON.writeValueAsString(m);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("cannot write event " + kind + " as JSON", e);
    }
  }

  /**
   * Reads a line {@link #toJson()} wrote.
   *
   * @throws IllegalArgumentException naming the line if it is not one flat object (for example the
   *     half-written last line of a worker killed mid-write)
   */
  static Event fromJson(String line) {
    Map<String, Object> m;
    try {
      m = JSON.readValue(line, new TypeReference<LinkedHashMap<String, Object>>() {});
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not a JSON object (" + e.getOriginalMessage() + "): " + line, e);
    }
    m.forEach((key, value) -> {
      if (!(value == null || value instanceof String || value instanceof Long || value instanceof Boolean)) {
        throw new IllegalArgumentException("not a flat history line ('" + key + "' is " + value + "): " + line);
      }
    });
    long wall = (Long) m.remove("wall");
    long mono = (Long) m.remove("mono");
    long pid = (Long) m.remove("pid");
    String proc = (String) m.remove("proc");
    String thread = (String) m.remove("thread");
    String kind = (String) m.remove("kind");
    String lock = (String) m.remove("lock");
    String hold = (String) m.remove("hold");
    Object token = m.remove("token");
    return new Event(wall, mono, pid, proc, thread, kind, lock, hold, token == null ? 0 : (Long) token, m);
  }
}

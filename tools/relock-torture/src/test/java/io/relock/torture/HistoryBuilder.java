package io.relock.torture;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Hand-written histories for checker tests. Times are milliseconds since the run began; holds are
 * named like the workers name them ({@code w1/0/1}); the fenced store's state is kept alongside,
 * as a correct store would keep it unless a test says otherwise.
 */
final class HistoryBuilder {
  private final List<Event> events = new ArrayList<>();
  private final Map<String, List<FencedStore.LoggedWrite>> logs = new LinkedHashMap<>();
  private final Map<String, Long> values = new HashMap<>();
  private final Map<String, Long> controlWrites = new HashMap<>();
  private final Map<String, Long> controlValues = new HashMap<>();

  private static long mono(long ms) {
    return 1_000_000_000L + ms * 1_000_000L;
  }

  private Event add(long ms, String proc, String kind, String lock, String hold, long token, Map<String, Object> data) {
    Event e = new Event(1_700_000_000_000L + ms, mono(ms), 100, proc, proc + "-t0", kind, lock, hold, token, data);
    events.add(e);
    return e;
  }

  private static String proc(String hold) {
    return hold.substring(0, hold.indexOf('/'));
  }

  /**
   * A complete critical section that behaves: acquired, fenced read and write accepted (the store
   * advances), released.
   */
  HistoryBuilder section(String hold, String lock, long token, long from, long to) {
    acquired(hold, lock, token, from);
    long base = values.getOrDefault(lock, 0L);
    read(hold, lock, token, from + 1, "ok", base);
    write(hold, lock, token, to - 2, to - 1, "accepted", base);
    storeAccepts(lock, token, base, hold);
    release(hold, lock, token, to, true, Event.RELEASED);
    return this;
  }

  HistoryBuilder acquired(String hold, String lock, long token, long at) {
    return acquired(hold, lock, token, at - 1, at, false);
  }

  HistoryBuilder acquired(String hold, String lock, long token, long sentAt, long at, boolean fixedLease) {
    return acquired(hold, lock, null, token, sentAt, at, fixedLease);
  }

  /** A grant of a lock family's hold: {@code lane} is {@link Hold#READ}, {@link Hold#WRITE} or {@link Hold#PERMIT}. */
  HistoryBuilder acquired(String hold, String lock, String lane, long token, long sentAt, long at, boolean fixedLease) {
    add(sentAt, proc(hold), Event.ACQUIRE_SENT, lock, hold, 0, HistoryWriter.fields("lease", fixedLease ? "fixed" : "watchdog",
        "lane", lane));
    add(at, proc(hold), Event.ACQUIRED, lock, hold, token, null);
    return this;
  }

  /** A read-write lock's reader that behaves: granted, its read sent at {@code from + 1} and accepted, released. */
  HistoryBuilder readerSection(String hold, String lock, long token, long from, long to) {
    acquired(hold, lock, Hold.READ, token, from - 1, from, false);
    readShared(hold, lock, token, from + 1, from + 2, "ok");
    release(hold, lock, token, to, true, Event.RELEASED);
    return this;
  }

  /** A reader's read of the store, sent at {@code sentAt} and answered {@code fenced} (ok or refused) at {@code at}. */
  HistoryBuilder readShared(String hold, String lock, long token, long sentAt, long at, String fenced) {
    add(at, proc(hold), Event.READ, lock, hold, token, HistoryWriter.fields("fenced", fenced,
        "value", values.getOrDefault(lock, 0L), "sent", mono(sentAt)));
    return this;
  }

  /** A read-write lock's writer that behaves, as {@link #section} (the store advances). */
  HistoryBuilder writerSection(String hold, String lock, long token, long from, long to) {
    acquired(hold, lock, Hold.WRITE, token, from - 1, from, false);
    long base = values.getOrDefault(lock, 0L);
    read(hold, lock, token, from + 1, "ok", base);
    write(hold, lock, token, to - 2, to - 1, "accepted", base);
    storeAccepts(lock, token, base, hold);
    release(hold, lock, token, to, true, Event.RELEASED);
    return this;
  }

  /** A semaphore's holder that behaves: granted a permit, let into the store, left it, released. */
  HistoryBuilder permitSection(String hold, String semaphore, long token, long from, long to) {
    acquired(hold, semaphore, Hold.PERMIT, token, from - 1, from, false);
    enter(hold, semaphore, token, from + 1, "ok");
    leave(hold, semaphore, token, to - 2, to - 1, "accepted");
    release(hold, semaphore, token, to, true, Event.RELEASED);
    return this;
  }

  /** A permit holder's entry into the store, answered {@code fenced} (ok or refused). */
  HistoryBuilder enter(String hold, String semaphore, long token, long at, String fenced) {
    add(at, proc(hold), Event.READ, semaphore, hold, token, HistoryWriter.fields("fenced", fenced));
    return this;
  }

  /** A permit holder's leave, sent at {@code sentAt}, answered {@code fenced} (accepted or refused). */
  HistoryBuilder leave(String hold, String semaphore, long token, long sentAt, long at, String fenced) {
    add(at, proc(hold), Event.WRITE, semaphore, hold, token, HistoryWriter.fields("fenced", fenced,
        "sent", mono(sentAt)));
    return this;
  }

  HistoryBuilder read(String hold, String lock, long token, long at, String fenced, long value) {
    add(at, proc(hold), Event.READ, lock, hold, token, HistoryWriter.fields("fenced", fenced, "value", value,
        "wvalue", value, "uvalue", value));
    return this;
  }

  HistoryBuilder write(String hold, String lock, long token, long sentAt, long at, String fenced, long base) {
    add(at, proc(hold), Event.WRITE, lock, hold, token, HistoryWriter.fields("fenced", fenced, "wonly", "accepted",
        "base", base, "sent", mono(sentAt)));
    return this;
  }

  HistoryBuilder release(String hold, String lock, long token, long at, boolean valid, String outcome) {
    add(at, proc(hold), Event.RELEASE_SENT, lock, hold, token, HistoryWriter.fields("valid", valid));
    add(at + 1, proc(hold), outcome, lock, hold, token, null);
    return this;
  }

  HistoryBuilder lostNotice(String hold, String lock, long token, long at) {
    add(at, proc(hold), Event.LOST_NOTICE, lock, hold, token, HistoryWriter.fields("valid", false));
    return this;
  }

  HistoryBuilder fault(String fault, String target, long from, long to) {
    add(from, "nemesis", Event.FAULT_START, null, null, 0, HistoryWriter.fields("fault", fault, "target", target));
    add(to, "nemesis", Event.FAULT_END, null, null, 0, HistoryWriter.fields("fault", fault, "target", target));
    return this;
  }

  /**
   * A failover of the Sentinel topology as the nemesis records it: replication cut at {@code cutAt}
   * (or never, if negative), the primary killed at {@code killAt}, the sentinels agreeing on the
   * promoted replica at {@code promotedAt}.
   */
  HistoryBuilder failover(long cutAt, long killAt, long promotedAt) {
    String fault = cutAt >= 0 ? Fault.FAILOVER_HOLE.id : Fault.FAILOVER.id;
    add(cutAt >= 0 ? cutAt : killAt, "nemesis", Event.FAULT_START, null, null, 0,
        HistoryWriter.fields("fault", fault, "target", "redis"));
    add(killAt, "nemesis", Event.PRIMARY_KILLED, null, null, 0,
        HistoryWriter.fields("port", 7000L, "cut", cutAt >= 0 ? mono(cutAt) : null));
    add(promotedAt, "nemesis", Event.PROMOTED, null, null, 0, HistoryWriter.fields("port", 7001L));
    add(promotedAt, "nemesis", Event.FAULT_END, null, null, 0, HistoryWriter.fields("fault", fault, "target", "redis"));
    return this;
  }

  /**
   * A restart of Redlock master {@code master} as the nemesis records it: the fault window from
   * {@code from} to {@code to}, and at {@code to}, once the master is back, one erased hold per
   * {@code erased} pair of lock and token. {@code delayed} false: the control, without the delay.
   */
  HistoryBuilder restartMaster(String master, long from, long to, boolean delayed, Object... erased) {
    return eraseOnMaster(delayed ? Fault.RESTART_MASTER : Fault.RESTART_MASTER_NODELAY, master, from, to, erased);
  }

  /** A fault on Redlock master {@code master} that erased the given holds there (lock, token, ...) at {@code to}. */
  HistoryBuilder eraseOnMaster(Fault f, String master, long from, long to, Object... erased) {
    String fault = f.id;
    add(from, "nemesis", Event.FAULT_START, null, null, 0, HistoryWriter.fields("fault", fault, "target", master));
    for (int i = 0; i < erased.length; i += 2) {
      add(to, "nemesis", Event.ERASED, (String) erased[i], null, (Long) erased[i + 1],
          HistoryWriter.fields("fault", fault, "master", master, "owner", "c:1"));
    }
    add(to, "nemesis", Event.FAULT_END, null, null, 0, HistoryWriter.fields("fault", fault, "target", master));
    return this;
  }

  HistoryBuilder workerStarted(String proc, String clientId, long at) {
    add(at, proc, Event.WORKER_STARTED, null, null, 0, HistoryWriter.fields("client", clientId));
    return this;
  }

  /** A lock key found on {@code node} (of {@code nodes}) after the workers stopped, gone after {@code goneMs} (-1: never). */
  HistoryBuilder leftover(String lock, String node, int nodes, String owner, long at, long goneMs) {
    return leftover(lock, node, nodes, owner, 0, at, goneMs);
  }

  /** Like the other, with the token the key has. */
  HistoryBuilder leftover(String lock, String node, int nodes, String owner, long token, long at, long goneMs) {
    add(at, "nemesis", Event.LEFTOVER, lock, null, 0, HistoryWriter.fields("node", node, "nodes", (long) nodes,
        "owner", owner, "token", Long.toString(token), "gone_ms", goneMs < 0 ? null : goneMs));
    return this;
  }

  HistoryBuilder acquireFailed(String hold, String lock, long sentAt, long at) {
    add(sentAt, proc(hold), Event.ACQUIRE_SENT, lock, hold, 0, HistoryWriter.fields("lease", "watchdog"));
    add(at, proc(hold), Event.ACQUIRE_FAILED, lock, hold, 0, HistoryWriter.fields("error",
        "lock '" + lock + "' was acquired, but only 0 of 1 replicas acknowledged it within PT0.5S (replicaAcks); released it"));
    return this;
  }

  HistoryBuilder killed(String proc, String lock, long at) {
    add(at, "nemesis", Event.KILLED, lock, null, 0, HistoryWriter.fields("target", proc, "reason", "nemesis"));
    return this;
  }

  HistoryBuilder probe(String lock, long at, String result) {
    add(at, "nemesis", Event.PROBE, lock, null, 0, HistoryWriter.fields("result", result));
    return this;
  }

  HistoryBuilder event(long at, String proc, String kind, String lock, String hold, Map<String, Object> data) {
    add(at, proc, kind, lock, hold, 0, data);
    return this;
  }

  /** The store accepts a fenced write: logged, and the counter set to what the writer read plus one. */
  HistoryBuilder storeAccepts(String lock, long token, long base, String hold) {
    logs.computeIfAbsent(lock, l -> new ArrayList<>()).add(new FencedStore.LoggedWrite(token, base, hold));
    values.put(lock, base + 1);
    return this;
  }

  /** The control counters saw {@code writes} writes but only reached {@code value}. */
  HistoryBuilder controls(String lock, long writes, long value) {
    controlWrites.put(lock, writes);
    controlValues.put(lock, value);
    return this;
  }

  History history() {
    return History.of(events);
  }

  Map<String, FencedStore.Counters> store() {
    Map<String, FencedStore.Counters> store = new LinkedHashMap<>();
    for (String lock : logs.keySet()) {
      List<FencedStore.LoggedWrite> log = logs.get(lock);
      long w = controlWrites.getOrDefault(lock, (long) log.size());
      long v = controlValues.getOrDefault(lock, (long) log.size());
      store.put(lock, new FencedStore.Counters(values.getOrDefault(lock, 0L), log.size(), List.copyOf(log), v, w, v, w));
    }
    return store;
  }

  /** Checks a Sentinel run with the given replicaAcks. */
  RunResult checkSentinel(Fault fault, int replicaAcks) {
    return Checker.check("test", fault, List.of("a fault"), history(), store(),
        TortureSettings.shortRun().forSentinel(true), Topology.SENTINEL, replicaAcks);
  }

  /** Checks a Redlock run. */
  RunResult checkRedlock(Fault fault) {
    return Checker.check("test", fault, List.of("a fault"), history(), store(),
        TortureSettings.shortRun().forRedlock(true), Topology.REDLOCK, 0);
  }

  /** Checks a single-server run of a lock family workload. */
  RunResult check(Fault fault, Workload workload) {
    return Checker.check("test", fault, fault == Fault.NONE ? List.of() : List.of("a fault"), history(), store(),
        TortureSettings.shortRun().forWorkload(workload), Topology.SINGLE, 0, workload);
  }

  RunResult check(Fault fault) {
    return Checker.check("test", fault, fault == Fault.NONE ? List.of() : List.of("a fault"), history(), store(),
        TortureSettings.shortRun());
  }
}

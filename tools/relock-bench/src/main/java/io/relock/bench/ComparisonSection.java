package io.relock.bench;

import io.relock.bench.Implementation.Server;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The "Redis vs ZooKeeper vs etcd vs PostgreSQL" section of docs/benchmarks.md, from a {@code
 * --compare} run: one table at a glance (the run's figures beside what each lock gives), the
 * articles' two claims set against the figures, when each is the right choice, then the run's
 * full tables. Sentences that rank or compare are computed from the run; only what does not depend
 * on it (what each system guarantees) is fixed text.
 */
final class ComparisonSection {

  private ComparisonSection() {}

  static String render(Results r, String command) {
    StringBuilder md = new StringBuilder(DocsWriter.beginComparison()).append("\n\n");
    md.append("## Redis vs ZooKeeper vs etcd vs PostgreSQL\n\n");
    md.append("The articles set Redis locks beside ZooKeeper's and a database's, and claim that Redis is the fastest"
        + " and ZooKeeper the most reliable. This run puts both claims to the test on one machine: relock, Redisson"
        + " and the articles' recipe on Redis against ZooKeeper (Curator's `InterProcessMutex`), etcd's lock API"
        + " (jetcd) and PostgreSQL (advisory locks, and the articles' pessimistic `SELECT ... FOR UPDATE` and"
        + " optimistic version-column recipes), each server started for the run, the same worker processes,"
        + " windows and scenarios for all. How it runs: [tools/relock-bench/README.md](../tools/relock-bench/README.md#the-comparison---compare).\n\n");
    md.append("- **Command:** `").append(command).append("` (").append(r.settings.mode()).append(" run, ")
        .append(String.format(Locale.ROOT, "%.0f", r.wallSeconds)).append(" s)\n");
    md.append("- **Measured:** ")
        .append(ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'"))).append('\n');
    md.append("- **relock built from:** commit ").append(r.machine.relockCommit()).append('\n');
    md.append("- **Machine:** ").append(r.machine.oneLine()).append('\n');
    md.append("- **Servers:** Redis ").append(r.machine.redisVersion()).append(" (no persistence: a grant lives in memory);");
    r.comparison.servers().entrySet().stream().sorted(Map.Entry.comparingByKey())
        .forEach(e -> md.append(' ').append(e.getValue()).append(';'));
    md.setLength(md.length() - 1);
    md.append('\n');
    r.comparison.skipped().forEach((server, why) -> md.append("- **Left out:** ").append(server.title()).append(": ")
        .append(why).append('\n'));
    md.append("- **Other processes** used ").append(r.othersCpuText()).append(" of the machine's CPU during the run")
        .append(r.machineWasBusy() ? " (**not a clean run: figures are disturbed**)" : "")
        .append("; load average before: ").append(r.machine.loadBefore()).append(", after: ").append(r.loadAfter).append('\n');
    md.append(DocsWriter.phases(r.settings));
    md.append("- **Holder killed:** every system told to give up on a silent holder after ")
        .append(r.settings.deathTimeout().toSeconds()).append(" s (lease, expiry, session timeout or time to live;"
            + " their defaults are longer: 30 s for relock and Redisson, 60 s for Curator's session) and then ")
        .append(r.settings.processes() - 1).append(" holders killed with SIGKILL while another process waited for"
            + " their locks\n");
    md.append("\n```\n").append(r.summaryLine()).append("\n```\n\n");
    md.append("![comparison chart](").append(DocsWriter.COMPARISON_CHART).append(")\n\n");

    md.append("### At a glance\n\n");
    md.append(glance(r).toMarkdown().replaceFirst("#### [^\n]*\n\n", "")).append('\n');
    md.append("`server CPU`: what one acquisition and its release cost the server, from `INFO` for Redis and from"
        + " the server's processes' CPU time for the others (PostgreSQL: the postmaster and its backends; a server"
        + " at `POSTGRES_URL` elsewhere is not measured). Every figure is the median of its windows.\n\n");

    md.append("### The articles' claims, against this run\n\n");
    md.append("**\"Redis is the fastest.\"** ").append(fastest(r)).append("\n\n");
    md.append("**\"ZooKeeper is the most reliable.\"** ").append(takeovers(r)).append(' ').append("""
        What ZooKeeper does give, and etcd with it, is a grant that is on disk (and, in an ensemble, on a quorum)
        before the client hears of it, so a server crash or failover does not forget a holder; Redis keeps the
        grant in memory, and a failover to a replica that had not received it can hand the lock out again
        (relock's `replicaAcks` narrows that window). Neither protects the resource from a holder that pauses
        (a long GC, a stopped VM) past its session or lease: ZooKeeper expires the session and grants the lock
        again while the old holder still believes it holds it, exactly as a lease runs out. What protects the
        resource then is a token that grows with every grant and is checked where the work lands: ZooKeeper's
        zxid or sequence number, etcd's revision, relock's fencing token, or the optimistic recipe's version;
        Redisson's `RLock`, the SET NX recipe and PostgreSQL's session locks hand out none. So the claim holds
        for the durability of a grant, not for mutual exclusion on its own.

        """);

    md.append("### When each is the right choice\n\n").append("""
        - **Redis (relock):** many locks taken often, where latency and throughput matter and Redis is already
          there; fencing tokens for the resource, since no lease can stop a paused holder; `replicaAcks` when a
          failover must not forget a grant.
        - **ZooKeeper or etcd:** coordination that must survive a server crash (leader election, a job that must
          run once), at rates where a disk write per acquisition does not matter, and where an ensemble or cluster
          is already run; use the zxid or revision as the fencing token.
        - **PostgreSQL advisory locks:** when the work is in the same database, on a connection the lock can own
          (not through a pool in transaction mode): a dead client frees the lock at once and nothing is written,
          but there is no token and a hung client keeps the lock until its connection is closed.
        - **`SELECT ... FOR UPDATE`:** to lock the row you are about to change, in the transaction that changes
          it. As a general mutex it keeps a transaction open for as long as the lock is held.
        - **Version column (optimistic):** to update a row where conflicts are rare; the version is a fencing token
          for free. It is not a mutex to wait on: under contention every waiter polls and retries, and without an
          expiry column a holder that dies keeps the lock forever.

        """);

    for (Table t : r.tables()) {
      md.append(t.toMarkdown()).append('\n');
    }
    md.append(DocsWriter.endComparison());
    return md.toString();
  }

  /** One row per implementation: its figures from this run beside what it gives. */
  static Table glance(Results r) {
    int procs = r.settings.processes();
    int fewest = r.processThreads().stream().filter(t -> t > 1).min(Integer::compare)
        .orElse(r.settings.mostProcessThreads());
    String across = procs + " x " + fewest;
    Table t = new Table("At a glance", List.of("implementation", "server", "1 x " + Results.TARGET_THREADS + " acq/s",
        across + " acq/s", across + " p99 ms", "server CPU us/acq (1 x " + Results.TARGET_THREADS + ")",
        "next holder after a kill, ms", "fencing or order",
        "a dead holder's lock is freed when", "waiting", "on disk before granted"));
    for (Implementation impl : implementations(r)) {
      LockFacts f = LockFacts.of(impl);
      Optional<Row> u = r.find(Results.UNCONTENDED, impl, Results.TARGET_THREADS);
      Optional<Row> c = r.find(Results.CONTENDED_PROCESSES, impl, fewest);
      Optional<TakeoverRow> k = r.takeovers.stream().filter(x -> x.impl() == impl).findFirst();
      t.add(impl.id(), impl.server().title(), u.map(x -> Results.num(x.perSecond(), 0)).orElse("-"),
          c.map(x -> Results.num(x.perSecond(), 0)).orElse("-"), c.map(x -> Results.num(x.millis(99), 1)).orElse("-"),
          u.map(x -> Results.num(x.serverCpuMicrosPerAcquisition(), 0)).orElse("-"),
          k.map(x -> Results.num(x.spread().median(), 0) + (x.stuck() > 0 ? " (" + x.stuck() + " never)" : "")).orElse("-"),
          f.fencing(), f.onDeath(), f.waiting(), f.durable());
    }
    return t;
  }

  private static List<Implementation> implementations(Results r) {
    List<Implementation> out = new ArrayList<>();
    r.rows.forEach(x -> {
      if (!out.contains(x.impl)) {
        out.add(x.impl);
      }
    });
    r.takeovers.forEach(x -> {
      if (!out.contains(x.impl())) {
        out.add(x.impl());
      }
    });
    return out;
  }

  /**
   * Per configuration, the fastest implementation and the best of each server, and in how many
   * configurations a Redis lock was the fastest.
   */
  static String fastest(Results r) {
    List<String> parts = new ArrayList<>();
    int configurations = 0;
    int redisFirst = 0;
    List<String[]> configs = new ArrayList<>();
    r.settings.uncontendedThreads().forEach(t -> configs.add(new String[] {Results.UNCONTENDED, String.valueOf(t)}));
    r.processThreads().stream().sorted().forEach(t -> configs.add(new String[] {Results.CONTENDED_PROCESSES, String.valueOf(t)}));
    for (String[] config : configs) {
      int threads = Integer.parseInt(config[1]);
      List<Row> rows = r.rows.stream().filter(x -> x.scenario.equals(config[0]) && x.threadsPerProcess == threads)
          .sorted(Comparator.comparingDouble(Row::perSecond).reversed()).toList();
      if (rows.isEmpty()) {
        continue;
      }
      configurations++;
      Row top = rows.get(0);
      if (top.impl.usesRedis()) {
        redisFirst++;
      }
      Map<Server, Row> best = new LinkedHashMap<>();
      rows.forEach(x -> best.putIfAbsent(x.impl.server(), x));
      StringBuilder sb = new StringBuilder(config[0].equals(Results.UNCONTENDED) ? "uncontended 1 x " + threads
          : "across processes " + r.settings.processes() + " x " + threads);
      sb.append(": ").append(top.impl.id()).append(String.format(Locale.ROOT, " %,.0f/s", top.perSecond()));
      List<String> others = new ArrayList<>();
      best.forEach((server, x) -> {
        if (x != top) {
          others.add(server.title() + " at best " + x.impl.id() + String.format(Locale.ROOT, " %,.0f/s (%s x)",
              x.perSecond(), ratio(x.perSecond() / top.perSecond())));
        }
      });
      if (!others.isEmpty()) {
        sb.append("; ").append(String.join(", ", others));
      }
      parts.add(sb.toString());
    }
    if (configurations == 0) {
      return "Not measured in this run.";
    }
    String verdict = redisFirst == configurations ? "It holds in this run: a Redis lock was the fastest in all "
        + configurations + " configurations."
        : redisFirst == 0 ? "It does not hold in this run: in all " + configurations + " configurations a lock kept"
            + " by another server was the fastest."
        : "It held in " + redisFirst + " of " + configurations + " configurations in this run.";
    return verdict + " Fastest per configuration, and the best of each other server against it: "
        + String.join("; ", parts) + "." + serverCost(r);
  }

  /**
   * What the servers spent per uncontended acquisition (8 threads): the claim seen from the server,
   * whose CPU a shared deployment runs out of first, apart from what the clients cost.
   */
  private static String serverCost(Results r) {
    List<Row> rows = r.rows.stream().filter(x -> x.scenario.equals(Results.UNCONTENDED)
            && x.threadsPerProcess == Results.TARGET_THREADS && !Double.isNaN(x.serverCpuMicrosPerAcquisition()))
        .sorted(Comparator.comparingDouble(Row::serverCpuMicrosPerAcquisition)).toList();
    if (rows.isEmpty()) {
      return "";
    }
    Map<Server, Row> best = new LinkedHashMap<>();
    rows.forEach(x -> best.putIfAbsent(x.impl.server(), x));
    List<String> parts = new ArrayList<>();
    best.forEach((server, x) -> parts.add(server.title() + String.format(Locale.ROOT, " %,.0f us (%s)",
        x.serverCpuMicrosPerAcquisition(), x.impl.id())));
    return " Seen from the server instead, the least CPU one uncontended acquisition and release cost it"
        + " (1 x " + Results.TARGET_THREADS + "), best of each: " + String.join(", ", parts) + ".";
  }

  /** A ratio with two decimals, or three where two would read 0.00. */
  private static String ratio(double r) {
    return String.format(Locale.ROOT, r >= 0.1 ? "%.2f" : "%.3f", r);
  }

  /** The holder-killed figures in one sentence. */
  static String takeovers(Results r) {
    if (r.takeovers.isEmpty()) {
      return "The holder-killed scenario did not run.";
    }
    List<String> parts = new ArrayList<>();
    for (TakeoverRow t : r.takeovers) {
      LockFacts f = LockFacts.of(t.impl());
      parts.add(t.impl().id() + " " + (Double.isNaN(t.spread().median()) ? "never (within " + t.limitMillis() / 1000 + " s)"
          : String.format(Locale.ROOT, "%,.0f ms", t.spread().median()))
          + (f.sessionBound() ? " (the session's end)" : ""));
    }
    return "With every system told to give up on a silent holder after " + r.settings.deathTimeout().toSeconds()
        + " s, the next holder got in after (median of the kills): " + String.join(", ", parts) + ". A dead"
        + " ZooKeeper client's lock waits for its session to expire, as a lease runs out; PostgreSQL's session locks"
        + " are bound to the holder's connection, which the kernel closes when the process dies.";
  }
}

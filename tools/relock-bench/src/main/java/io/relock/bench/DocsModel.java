package io.relock.bench;

import io.relock.bench.BenchTarget.Topology;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.IntStream;

/**
 * What each part of docs/benchmarks.md is rendered from: figures as the page prints them, table
 * rows and flags, and no prose, which is in the Mustache templates under {@code
 * io/relock/bench/docs} (one per part, named after it). {@link DocsWriter} renders them; a run
 * saves the data beside its results, so that a changed template can be rendered again without
 * measuring again ({@code ./relock bench --render-docs}).
 */
final class DocsModel {

  private DocsModel() {}

  /** The run: the first lines of every part. {@code machine} is where it ran, or the host alone for several passes. */
  record Run(String command, String mode, String seconds, String measured, String commit, String machine,
      String othersCpu, boolean busy, String loadBefore, String loadAfter) {}

  /** How long each configuration warmed up and was measured (the "Phases" line). */
  record Phases(String warmup, String jvmWarmup, int windows, String window, String jitPercent, long settleSeconds) {}

  /** A table: its title, its columns (figures are right-aligned) and its rows of cells. */
  record MarkdownTable(String title, List<Column> columns, List<Cells> rows) {}

  record Column(String name, boolean figures) {}

  record Cells(List<String> cells) {}

  /** A target: what, the threshold (Markdown), the value measured, met or MISSED. */
  record TargetRow(String what, String threshold, String measured, String verdict) {}

  /** The page a single-Redis run writes; {@code redissonCommands} is null without Redisson's contended row. */
  record Page(Run run, Phases phases, String summary, List<TargetRow> targets, List<MarkdownTable> tables,
      RedissonCommands redissonCommands) {}

  /** Every command Redis ran per contended acquisition by Redisson, and the calls its clients sent. */
  record RedissonCommands(String all, int processes, int threads, String sent) {}

  /** A Sentinel, Cluster or Redlock section: one pass, or one per Redlock group size. */
  record TopologySection(Run run, List<Pass> passes, Phases phases, List<String> summaries,
      List<MarkdownTable> tables) {}

  /** One pass of a topology's section. */
  record Pass(String id, String redis, String seconds, String othersCpu, boolean busy, String loadBefore,
      String loadAfter) {}

  /** The lock family's section. */
  record Family(int processes, int threads, Run run, Phases phases, String summary, String chart,
      List<TargetRow> targets, MarkdownTable table) {}

  /** The client profile: per JFR recording, its samples and, when it has any, two tables. */
  record Profile(String command, List<Recording> recordings) {}

  record Recording(String file, String samples, MarkdownTable layers, MarkdownTable methods) {}

  static Page page(Results r, String command) {
    RedissonCommands redisson = r.find(Results.CONTENDED_PROCESSES, Implementation.REDISSON,
        r.settings.mostProcessThreads()).map(x -> new RedissonCommands(
            String.format(Locale.ROOT, "%.1f", x.allCommandsPerAcquisition()), r.settings.processes(),
            r.settings.mostProcessThreads(), String.format(Locale.ROOT, "%.1f", x.callsPerAcquisition())))
        .orElse(null);
    return new Page(run(r, command, r.wallSeconds, r.machine.oneLine()), phases(r.settings), r.summaryLine(),
        targets(r), tables(r.tables()), redisson);
  }

  /** Per load scenario one table; on Redlock a row per group size and implementation, the sizes side by side. */
  static TopologySection topology(Topology topology, List<Results> passes, String command) {
    if (passes.isEmpty()) {
      throw new IllegalArgumentException("no " + topology.id() + " pass to document");
    }
    boolean redlock = topology == Topology.REDLOCK;
    Results first = passes.get(0);
    List<Pass> each = passes.stream().map(r -> new Pass(r.deployment.id(), r.machine.redis(), seconds(r.wallSeconds),
        r.othersCpuText(), r.machineWasBusy(), r.machine.loadBefore(), r.loadAfter)).toList();
    List<Table> tables = new ArrayList<>();
    for (String scenario : Results.LOAD_SCENARIOS) {
      // Redlock's group size goes right after the implementation, which stays first (left-aligned).
      List<String> header = new ArrayList<>(Results.LOAD_COLUMNS);
      if (redlock) {
        header.add(1, "masters");
      }
      Table t = new Table(first.titleOf(scenario), header);
      for (Results r : passes) {
        for (List<String> cells : r.cells(scenario)) {
          List<String> row = new ArrayList<>(cells);
          if (redlock) {
            row.add(1, String.valueOf(r.deployment.masters()));
          }
          t.add(row.toArray(new String[0]));
        }
      }
      if (!t.rows().isEmpty()) {
        tables.add(t);
      }
    }
    double seconds = passes.stream().mapToDouble(r -> r.wallSeconds).sum();
    return new TopologySection(run(first, command, seconds, first.machine.hostLine()), each, phases(first.settings),
        passes.stream().map(Results::summaryLine).toList(), tables(tables));
  }

  static Family family(Results r, String command) {
    return new Family(r.settings.processes(), r.settings.mostProcessThreads(),
        run(r, command, r.wallSeconds, r.machine.oneLine()), phases(r.settings), r.summaryLine(),
        DocsWriter.FAMILY_CHART, targets(r), table(FamilyReport.table(r)));
  }

  static Profile profile(List<JfrSummary.Profile> profiles, String command) {
    return new Profile(command, profiles.stream().map(p -> new Recording(p.file().getFileName().toString(),
        String.format(Locale.ROOT, "%,d", p.samples()), p.samples() == 0 ? null : table(p.layers()),
        p.samples() == 0 ? null : table(p.methods()))).toList());
  }

  /** The first lines of a part: {@code seconds} the run's (all passes'), {@code machine} as the part names it. */
  static Run run(Results r, String command, double seconds, String machine) {
    return new Run(command, r.settings.mode(), seconds(seconds),
        ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")),
        r.machine.relockCommit(), machine, r.othersCpuText(), r.machineWasBusy(), r.machine.loadBefore(), r.loadAfter);
  }

  static Phases phases(BenchSettings s) {
    return new Phases(String.format(Locale.ROOT, "%.2f", s.warmup().toMillis() / 1000.0),
        String.format(Locale.ROOT, "%.2f", s.jvmWarmup().toMillis() / 1000.0), s.windows(),
        String.format(Locale.ROOT, "%.1f", s.window().toMillis() / 1000.0),
        String.format(Locale.ROOT, "%.0f", 100 * Bench.JIT_SETTLED), s.settleLimit().toSeconds());
  }

  /** The targets, their thresholds with {@code <} and {@code >} as Markdown must have them outside code. */
  static List<TargetRow> targets(Results r) {
    return r.targets().stream().map(t -> new TargetRow(t.what(),
        t.threshold().replace("<", "&lt;").replace(">", "&gt;"), Results.num(t.value(), 2), t.verdict())).toList();
  }

  static List<MarkdownTable> tables(List<Table> tables) {
    return tables.stream().map(DocsModel::table).toList();
  }

  static MarkdownTable table(Table t) {
    List<Column> columns = IntStream.range(0, t.header().size())
        .mapToObj(i -> new Column(t.header().get(i), t.rightAligned(i))).toList();
    return new MarkdownTable(t.title(), columns, t.rows().stream().map(Cells::new).toList());
  }

  static String seconds(double seconds) {
    return String.format(Locale.ROOT, "%.0f", seconds);
  }
}

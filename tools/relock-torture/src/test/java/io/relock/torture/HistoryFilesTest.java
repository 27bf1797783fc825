package io.relock.torture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** History files: what a worker writes is what the checker reads, and a seed fixes a schedule. */
class HistoryFilesTest {

  @Test
  void event_survivesTheRoundTrip_withAwkwardText() {
    Event e = new Event(1, 2, 3, "w1", "w1-t0", Event.RELEASE_LOST, "lock \"a\"", "w1/0/1", 1795240000000001L,
        HistoryWriter.fields("error", "lost: \\ back\nslash\t\u0001", "valid", false, "n", -5L, "absent", null));

    Event back = Event.fromJson(e.toJson());

    assertThat(back).isEqualTo(e);
    assertThat(back.data()).doesNotContainKey("absent");
  }

  @Test
  void event_rejectsLinesThatAreNotOneFlatObject() {
    String head = "{\"wall\":1,\"mono\":2,\"pid\":3,\"proc\":\"w1\",\"thread\":\"t\",\"kind\":\"acquired\"";
    assertThat(Event.fromJson(head + "}").kind()).isEqualTo(Event.ACQUIRED);
    assertThatThrownBy(() -> Event.fromJson("{\"wall\":1,\"mono\":")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Event.fromJson(head + ",\"a\":[1]}")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Event.fromJson(head + ",\"a\":{\"b\":1}}")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Event.fromJson(head + ",\"a\":1.5}")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Event.fromJson(head + "} x")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void read_mergesFilesByMonotonicTime_andSkipsATornLastLine(@TempDir Path dir) throws Exception {
    try (HistoryWriter w1 = new HistoryWriter(dir.resolve("w1.jsonl"), "w1");
        HistoryWriter w2 = new HistoryWriter(dir.resolve("w2.jsonl"), "w2")) {
      w2.record(100, Event.ACQUIRE_SENT, "a", "w2/0/1", 0, null);
      w1.record(50, Event.ACQUIRE_SENT, "a", "w1/0/1", 0, null);
      w1.record(150, Event.ACQUIRED, "a", "w1/0/1", 7, null);
    }
    Files.writeString(dir.resolve("w2.jsonl"), "{\"wall\":1,\"mono\":2", StandardCharsets.UTF_8,
        java.nio.file.StandardOpenOption.APPEND);

    History h = History.read(dir);

    assertThat(h.events()).extracting(Event::monoNanos).containsExactly(50L, 100L, 150L);
    assertThat(h.unreadableLines()).isEqualTo(1);
  }

  @Test
  void sameSeed_sameSchedule_otherSeed_otherSchedule() {
    TortureSettings s = TortureSettings.shortRun();
    List<Step> a = Step.schedule(Fault.COMBINED, Duration.ofSeconds(30), s, new Random(42));
    List<Step> b = Step.schedule(Fault.COMBINED, Duration.ofSeconds(30), s, new Random(42));
    List<Step> c = Step.schedule(Fault.COMBINED, Duration.ofSeconds(30), s, new Random(43));

    assertThat(a).isEqualTo(b).isNotEqualTo(c);
    assertThat(a).extracting(Step::fault).doesNotContain(Fault.NONE, Fault.COMBINED, Fault.BLACKHOLE_RESUME);
    assertThat(Step.schedule(Fault.NONE, Duration.ofSeconds(30), s, new Random(42))).isEmpty();
  }

  @Test
  void pausesOfAHolder_outlastTheLease() {
    TortureSettings s = TortureSettings.shortRun();
    for (Step step : Step.schedule(Fault.PAUSE_HOLDER, Duration.ofSeconds(60), s, new Random(7))) {
      assertThat(step.length()).isGreaterThan(s.lease());
    }
  }

  @Test
  void workerConfig_survivesItsCommandLine() {
    WorkerConfig c = new WorkerConfig("w3", "redis://127.0.0.1:1", "redis://127.0.0.1:2", Path.of("/tmp/h.jsonl"),
        Path.of("/tmp/stop"), 2, List.of("a", "b"), Duration.ofMillis(1500), Duration.ofSeconds(1),
        Duration.ofSeconds(1), Duration.ofSeconds(3), Duration.ofMillis(20), Duration.ofMillis(120), 16,
        Duration.ofMillis(1500), Duration.ofMillis(3500), 6, 99, 1, Duration.ofMillis(500), Duration.ZERO,
        Topology.SENTINEL);

    assertThat(WorkerConfig.parse(c.toArgs().toArray(String[]::new))).isEqualTo(c);
    assertThat(c.toArgs()).contains("--topology=sentinel");
  }

  @Test
  void redlockWorkerConfig_survivesItsCommandLine_withAProxyPerMaster() {
    WorkerConfig c = new WorkerConfig("w1", "redis://127.0.0.1:11,redis://127.0.0.1:12,redis://127.0.0.1:13",
        "redis://127.0.0.1:2", Path.of("/tmp/h.jsonl"), Path.of("/tmp/stop"), 2, List.of("a", "b"),
        Duration.ofMillis(1500), Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(3),
        Duration.ofMillis(20), Duration.ofMillis(120), 4, Duration.ofSeconds(2), Duration.ofSeconds(4), 0, 5, 0,
        Duration.ofMillis(500), Duration.ofSeconds(3), Topology.REDLOCK);

    WorkerConfig parsed = WorkerConfig.parse(c.toArgs().toArray(String[]::new));
    assertThat(parsed).isEqualTo(c);
    assertThat(parsed.topology()).isEqualTo(Topology.REDLOCK);
    assertThat(parsed.lockUris()).containsExactly("redis://127.0.0.1:11", "redis://127.0.0.1:12",
        "redis://127.0.0.1:13");
    assertThat(parsed.redlockRestartDelay()).isEqualTo(Duration.ofSeconds(3));
  }
}

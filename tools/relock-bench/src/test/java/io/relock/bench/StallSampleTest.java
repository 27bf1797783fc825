package io.relock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class StallSampleTest {

  /** One SLOWLOG GET entry as Lettuce returns it: id, unix time, microseconds, arguments, client, name. */
  private static List<Object> entry(long id, long micros, String... args) {
    return List.of(id, 1_700_000_000L, micros, List.of((Object[]) args), "127.0.0.1:5000", "");
  }

  @Test
  void fromSlowlog_takesTheLongestEntry_itsCommandName_andTheCount_leavingOutTheBenchsOwn() {
    StallSample s = StallSample.fromSlowlog(List.of(
        entry(3, 180, "EVALSHA", "abc", "1", "held-1"),
        entry(2, 512, "EVALSHA", "def", "400", "held-2"),
        entry(1, 130, "KEYS", "*"),
        entry(0, 900, "INFO", "commandstats")), 10.5);
    assertThat(s.measured()).isTrue();
    assertThat(s.worstMicros()).isEqualTo(512);
    assertThat(s.worstMillis()).isEqualTo(0.512);
    assertThat(s.slowestCommand()).isEqualTo("evalsha");
    assertThat(s.slowCommands()).isEqualTo(3);
    assertThat(s.windowSeconds()).isEqualTo(10.5);
    assertThat(s.worstMillisText()).isEqualTo("0.51");
  }

  /**
   * The fixed work's sizing and figures count its own script's runs alone: a held-locks worker's
   * renewals log thousands of one-microsecond inner commands meanwhile, which once sized the loop
   * to minutes and blocked Redis.
   */
  @Test
  void runsOf_keepsTheFixedScriptsEntriesAlone() {
    String loop = "local x = 0 for i = 1, tonumber(ARGV[1]) do x = x + i end return 0";
    List<?> own = BenchRedis.runsOf(loop, List.of(
        entry(5, 1, "GET", "relock:{a}"),
        entry(4, 1, "PEXPIREAT", "relock:{a}", "1795"),
        entry(3, 300, "EVAL", loop, "0", "1200"),
        entry(2, 350, "EVALSHA", "abc", "1", "relock:{a}"),
        entry(1, 290, "eval", loop, "0", "1200")));
    StallSample s = StallSample.fromSlowlog(own, 0);
    assertThat(s.slowCommands()).isEqualTo(2);
    assertThat(s.medianMicros()).isEqualTo(300);
    assertThat(s.worstMicros()).isEqualTo(300);
  }

  @Test
  void fromSlowlog_withNothingOverTheThreshold_isZero_andSaysUnderIt() {
    StallSample s = StallSample.fromSlowlog(List.of(), 1.5);
    assertThat(s.measured()).isTrue();
    assertThat(s.worstMicros()).isZero();
    assertThat(s.slowCommands()).isZero();
    assertThat(s.slowestCommand()).isNull();
    assertThat(s.worstMillisText()).isEqualTo("< 0.10");
    assertThat(s.describe()).contains("under 100 us");
  }

  @Test
  void fromSlowlog_skipsEntriesOfAnotherShape_andOlderRedisEntriesWithoutClientFields() {
    // Redis before 4.0 sends four fields only; an entry with no arguments still counts.
    StallSample s = StallSample.fromSlowlog(List.of(
        List.of(1L, 1_700_000_000L, 250L, List.of("evalsha", "abc")),
        List.of(2L, 1_700_000_000L, 900L, List.of()),
        List.of(3L, 1_700_000_000L, "not a number", List.of("get")),
        "not an entry"), 2);
    assertThat(s.worstMicros()).isEqualTo(900);
    assertThat(s.slowestCommand()).isEqualTo("?");
    assertThat(s.slowCommands()).isEqualTo(2);
  }

  @Test
  void notMeasured_isNaN_withNoCount_andSaysWhy() {
    StallSample s = StallSample.notMeasured(10.5, "CONFIG GET refused: ERR unknown command 'CONFIG'");
    assertThat(s.measured()).isFalse();
    assertThat(s.worstMillis()).isNaN();
    assertThat(s.slowCommands()).isEqualTo(-1);
    assertThat(s.worstMillisText()).isEqualTo("-");
    assertThat(s.describe()).contains("not measured").contains("unknown command");
  }
}

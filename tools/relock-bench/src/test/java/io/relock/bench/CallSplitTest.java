package io.relock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CallSplitTest {

  @Test
  void monitorCalibration_splitsACommandBothSidesSend() {
    // As Redisson does: DEL from the client after each unlock, and DEL inside the unlock script.
    Map<String, long[]> seen = new HashMap<>();
    seen.put("evalsha", new long[] {300, 0});
    seen.put("del", new long[] {100, 100});
    seen.put("publish", new long[] {0, 100});
    CallSplit split = CallSplit.fromMonitor(seen);

    Map<String, Long> window = Map.of("evalsha", 3000L, "del", 2000L, "publish", 1000L, "subscribe", 4L);
    // evalsha 3000 + half of del + subscribe (never seen in calibration: client-only by name)
    assertThat(split.clientCalls(window, Set.of())).isEqualTo(3000 + 1000 + 4);
    assertThat(split.scriptCalls(window, Set.of())).isEqualTo(1000 + 1000);
    assertThat(split.calibrated()).isTrue();
    assertThat(split.describe()).containsEntry("del", "100/100");
  }

  @Test
  void monitorCalibration_overridesTheRuleByName() {
    CallSplit split = CallSplit.fromMonitor(Map.of("set", new long[] {0, 10}));
    assertThat(split.clientShare("set", Set.of("set"))).isZero();
    assertThat(CallSplit.none().clientShare("set", Set.of("set"))).isEqualTo(1.0);
    assertThat(CallSplit.none().clientShare("get", Set.of("set"))).isZero();
    assertThat(CallSplit.none().calibrated()).isFalse();
  }

  @Test
  void monitorLine_tellsScriptsFromClients() {
    assertThat(MonitorTally.parse("+1700000000.123456 [0 127.0.0.1:5000] \"EVALSHA\" \"abc\" \"1\""))
        .isEqualTo(new MonitorTally.Sample("evalsha", false));
    assertThat(MonitorTally.parse("+1700000000.123456 [0 lua] \"hget\" \"k\" \"o\""))
        .isEqualTo(new MonitorTally.Sample("hget", true));
    assertThat(MonitorTally.parse("+1700000000.1 [3 unix:/tmp/redis.sock] \"set\" \"x\""))
        .isEqualTo(new MonitorTally.Sample("set", false));
    assertThat(MonitorTally.parse("+OK")).isNull();
    assertThat(MonitorTally.parse("-ERR something")).isNull();
  }
}

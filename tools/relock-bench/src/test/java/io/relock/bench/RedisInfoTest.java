package io.relock.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Set;
import org.junit.jupiter.api.Test;

class RedisInfoTest {

  private static final String BEFORE = """
      # Server\r
      redis_version:7.0.15\r
      # CPU\r
      used_cpu_sys:1.500000\r
      used_cpu_user:2.250000\r
      used_cpu_sys_children:9.000000\r
      # Commandstats\r
      cmdstat_evalsha:calls=100,usec=900,usec_per_call=9.00,rejected_calls=0,failed_calls=0\r
      cmdstat_hget:calls=100,usec=50,usec_per_call=0.50,rejected_calls=0,failed_calls=0\r
      cmdstat_info:calls=3,usec=100,usec_per_call=33.33,rejected_calls=0,failed_calls=0\r
      cmdstat_config|resetstat:calls=1,usec=10,usec_per_call=10.00,rejected_calls=0,failed_calls=0\r
      """;

  private static final String AFTER = """
      # Server
      redis_version:7.0.15
      # CPU
      used_cpu_sys:2.000000
      used_cpu_user:3.000000
      # Commandstats
      cmdstat_evalsha:calls=300,usec=900,usec_per_call=9.00
      cmdstat_hget:calls=300,usec=50,usec_per_call=0.50
      cmdstat_publish:calls=40,usec=50,usec_per_call=0.50
      cmdstat_subscribe:calls=5,usec=50,usec_per_call=0.50
      cmdstat_set:calls=70,usec=50,usec_per_call=0.50
      cmdstat_ping:calls=2,usec=50,usec_per_call=0.50
      cmdstat_info:calls=5,usec=100,usec_per_call=33.33
      cmdstat_config|resetstat:calls=2,usec=10,usec_per_call=10.00
      cmdstat_config|get:calls=1,usec=10,usec_per_call=10.00
      """;

  @Test
  void parse_readsCallsCpuAndFields_andFoldsSubcommands() {
    RedisInfo info = RedisInfo.parse(AFTER);
    assertThat(info.field("redis_version")).isEqualTo("7.0.15");
    assertThat(info.cpuSeconds()).isCloseTo(5.0, within(1e-9));
    assertThat(info.commandCalls()).containsEntry("evalsha", 300L).containsEntry("config", 3L);
    assertThat(info.field("missing")).isEmpty();
  }

  @Test
  void delta_keepsIncreasesOnly_andDropsTheHarnessCommands() {
    RedisInfo.Delta d = RedisInfo.parse(AFTER).since(RedisInfo.parse(BEFORE));
    assertThat(d.redisCpuSeconds()).isCloseTo(1.25, within(1e-9));
    assertThat(d.calls()).containsEntry("evalsha", 200L).containsEntry("info", 2L).containsEntry("config", 2L)
        .containsEntry("publish", 40L);
    assertThat(d.withoutHarness()).doesNotContainKeys("info", "config")
        .containsEntry("evalsha", 200L).containsEntry("hget", 200L).containsEntry("set", 70L);
  }

  @Test
  void splitByName_countsClientOnlyCommandsAndDeclaredDirectOnes() {
    RedisInfo.Delta d = RedisInfo.parse(AFTER).since(RedisInfo.parse(BEFORE));
    CallSplit byName = CallSplit.none();
    // evalsha 200 + subscribe 5 + ping 2; hget, publish and set came from scripts.
    assertThat(byName.clientCalls(d.withoutHarness(), Set.of())).isEqualTo(207);
    assertThat(byName.scriptCalls(d.withoutHarness(), Set.of())).isEqualTo(200 + 40 + 70);
    // An implementation that sends SET itself (the recipe).
    assertThat(byName.clientCalls(d.withoutHarness(), Set.of("set"))).isEqualTo(277);
  }

  @Test
  void combine_sumsCallsOverPrimaries_andCpuOverEveryNode() {
    String replica = """
        # CPU
        used_cpu_sys:10.000000
        used_cpu_user:20.000000
        """;
    String replicaWithCalls = replica + "# Commandstats\ncmdstat_hget:calls=999,usec=1,usec_per_call=0.1\n";
    RedisInfo combined = RedisInfo.combine(java.util.List.of(RedisInfo.parse(AFTER), RedisInfo.parse(BEFORE)),
        java.util.List.of(RedisInfo.parse(replicaWithCalls)));
    assertThat(combined.commandCalls()).containsEntry("evalsha", 400L).containsEntry("hget", 400L)
        .containsEntry("publish", 40L).containsEntry("config", 4L);
    assertThat(combined.cpuSeconds()).isCloseTo(5.0 + 3.75 + 30.0, within(1e-9));
    assertThat(combined.field("redis_version")).isEqualTo("7.0.15");
  }

  @Test
  void replicationTraffic_countsForNobody() {
    RedisInfo.Delta d = new RedisInfo.Delta(java.util.Map.of("replconf", 5L, "psync", 1L, "evalsha", 10L), 0);
    assertThat(d.withoutHarness()).containsOnlyKeys("evalsha");
  }

  @Test
  void clientOnlyCommands_areThoseScriptsCannotRun() {
    assertThat(RedisInfo.isClientOnly("evalsha")).isTrue();
    assertThat(RedisInfo.isClientOnly("subscribe")).isTrue();
    assertThat(RedisInfo.isClientOnly("publish")).isFalse();
    assertThat(RedisInfo.isClientOnly("get")).isFalse();
  }
}

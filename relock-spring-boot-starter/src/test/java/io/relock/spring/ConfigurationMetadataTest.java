package io.relock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.relock.internal.RelockSettings;
import java.io.InputStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.convert.DurationStyle;

/**
 * The IDE metadata the build generates: every relock.* property is described, and the defaults it
 * shows are relock's own.
 */
class ConfigurationMetadataTest {

  private static JsonNode metadata() throws Exception {
    try (InputStream in = ConfigurationMetadataTest.class.getResourceAsStream(
        "/META-INF/spring-configuration-metadata.json")) {
      assertThat(in).as("the configuration processor ran").isNotNull();
      return new ObjectMapper().readTree(in);
    }
  }

  @Test
  void everyRelockProperty_isDescribed() throws Exception {
    Map<String, JsonNode> properties = new HashMap<>();
    metadata().get("properties").forEach(p -> properties.put(p.get("name").asText(), p));
    assertThat(properties).containsKeys("relock.enabled", "relock.key-prefix", "relock.default-lease",
        "relock.clock-drift", "relock.command-timeout", "relock.connect-timeout", "relock.recheck-interval",
        "relock.fence-retention", "relock.driver", "relock.replica-acks.replicas", "relock.replica-acks.timeout",
        "relock.redlock.nodes", "relock.redlock.restart-delay", "relock.locked.on-lost",
        "relock.metrics.lock-name-pattern", "management.health.relock.enabled");
    assertThat(properties.values()).allSatisfy(p -> assertThat(p.path("description").asText()).as(p.toString())
        .isNotBlank());
  }

  @Test
  void theDefaultsShown_areRelocksOwn() throws Exception {
    Map<String, String> defaults = new HashMap<>();
    metadata().get("properties").forEach(p -> {
      if (p.has("defaultValue")) {
        defaults.put(p.get("name").asText(), p.get("defaultValue").asText());
      }
    });
    RelockSettings core = RelockSettings.defaults();
    assertThat(defaults.get("relock.key-prefix")).isEqualTo(core.keyPrefix());
    assertThat(duration(defaults, "relock.default-lease")).isEqualTo(core.defaultLease());
    assertThat(duration(defaults, "relock.command-timeout")).isEqualTo(core.commandTimeout());
    assertThat(duration(defaults, "relock.connect-timeout")).isEqualTo(core.connectTimeout());
    assertThat(duration(defaults, "relock.recheck-interval")).isEqualTo(core.recheckInterval());
    assertThat(duration(defaults, "relock.fence-retention")).isEqualTo(core.fenceRetention());
    assertThat(defaults).doesNotContainKey("relock.clock-drift");
  }

  private static Duration duration(Map<String, String> defaults, String name) {
    return DurationStyle.detectAndParse(defaults.get(name));
  }
}

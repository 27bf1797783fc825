package io.relock.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.Relock;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The snippets of docs/getting-started.md. */
class GettingStartedTest {

  @Test
  void theFirstLock_runsAsAProgram() {
    PrintStream out = System.out;
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
    try {
      FirstLock.main(new String[] {DocsRedis.uri()});
    } finally {
      System.setOut(out);
    }
    assertThat(printed.toString(StandardCharsets.UTF_8)).matches("holding nightly-report with fencing token \\d+\\R");
  }

  @Test
  void theBuilder_setsEachValue_andRefusesABadOneAtOnce() {
    String redisUri = DocsRedis.uri();
    // snippet:builder
    Relock relock = Relock.builder()
        .uri(redisUri)
        .keyPrefix("shop:")                        // every key and channel starts with it; default "relock:"
        .defaultLease(Duration.ofSeconds(20))      // leases without a fixed time, renewed every third; default 30 s
        .commandTimeout(Duration.ofSeconds(2))     // one Redis call; default 3 s
        .build();
    // end:builder
    try (relock) {
      assertThat(relock.lock("builder").tryLock()).isTrue();
      relock.lock("builder").unlock();
    }
    assertThatThrownBy(() -> Relock.builder().defaultLease(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("defaultLease");
  }
}

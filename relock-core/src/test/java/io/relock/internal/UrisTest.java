package io.relock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class UrisTest {
  @Test
  void passwords_areRedacted() {
    assertThat(Uris.redact("redis://app:s3cret@host:6379/0")).isEqualTo("redis://app:***@host:6379/0");
    assertThat(Uris.redact("rediss://s3cret@host")).isEqualTo("rediss://***@host");
    assertThat(Uris.redact("redis://host:6379")).isEqualTo("redis://host:6379");
    assertThat(Uris.redact("redis://host/path@x")).isEqualTo("redis://host/path@x");
  }
}

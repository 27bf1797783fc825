package io.relock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LockKeysTest {
  @Test
  void theLockKey_hasTheNameAsHashTag_andTheScriptsNameTheOtherKeysAfterIt() {
    assertThat(LockKeys.of("relock:", "orders").lock()).isEqualTo("relock:{orders}");
    assertThat(Scripts.ACQUIRE.source()).contains("local FENCE = KEYS[1] .. ':fence'")
        .contains("local QUEUE, WAITERS = KEYS[1] .. ':q', KEYS[1] .. ':qi'");
  }

  @Test
  void braces_andPercent_areEncoded_soTheTagCoversTheWholeName() {
    assertThat(LockKeys.of("p:", "a}b").lock()).isEqualTo("p:{a%7Db}");
    assertThat(LockKeys.of("p:", "}x").lock()).isEqualTo("p:{%7Dx}");
    assertThat(LockKeys.of("p:", "{").lock()).isEqualTo("p:{%7B}");
    assertThat(LockKeys.of("p:", "100%").lock()).isEqualTo("p:{100%25}");
    assertThat(LockKeys.of("p:", "a%7Db").lock()).isNotEqualTo(LockKeys.of("p:", "a}b").lock());
  }
}

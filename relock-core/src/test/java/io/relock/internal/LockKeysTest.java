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
    assertThat(LockKeys.of("p:", "a{}b").lock()).as("an empty tag is no tag").isEqualTo("p:{a%7B%7Db}");
    assertThat(LockKeys.of("p:", "100%").lock()).isEqualTo("p:{100%25}");
    assertThat(LockKeys.of("p:", "a%7Db").lock()).isNotEqualTo(LockKeys.of("p:", "a}b").lock());
  }

  @Test
  void aNameWithAHashTagOfItsOwn_isPlacedByThatTag_andKeepsAKeyOfItsOwn() {
    assertThat(LockKeys.of("relock:", "{acct-1}:from").lock()).isEqualTo("relock:{acct-1}{%7Bacct-1%7D:from}");
    assertThat(LockKeys.of("relock:", "transfer:{acct-1}").lock()).isEqualTo("relock:{acct-1}{transfer:%7Bacct-1%7D}");
    assertThat(LockKeys.of("relock:", "{{x}y").lock()).as("Redis's rule: first '{', first '}' after it")
        .isEqualTo("relock:{%7Bx}{%7B%7Bx%7Dy}");
    assertThat(Slots.slotOf(LockKeys.of("relock:", "{acct-1}:from").lock()))
        .isEqualTo(Slots.slotOf(LockKeys.of("relock:", "{acct-1}:to").lock()))
        .isEqualTo(Slots.slotOf("acct-1"));
    for (String name : java.util.List.of("{acct-1}:from", "plain", "a}b", "{{x}y", "%7B", "{}")) {
      assertThat(LockInspector.nameOf("relock:", LockKeys.of("relock:", name).lock())).as(name).isEqualTo(name);
    }
  }
}

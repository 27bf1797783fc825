package io.relock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class NameGlobTest {

  @Test
  void matches_asRedisGlobsDo_overTheWholeName() {
    assertThat(new NameGlob("jobs:*").matches("jobs:1")).isTrue();
    assertThat(new NameGlob("jobs:*").matches("xjobs:1")).isFalse();
    assertThat(new NameGlob("j?bs").matches("jobs")).isTrue();
    assertThat(new NameGlob("j?bs").matches("jbs")).isFalse();
    assertThat(new NameGlob("[a-c]x").matches("bx")).isTrue();
    assertThat(new NameGlob("[^a-c]x").matches("bx")).isFalse();
    assertThat(new NameGlob("[^a-c]x").matches("dx")).isTrue();
    assertThat(new NameGlob("a\\*").matches("a*")).isTrue();
    assertThat(new NameGlob("a\\*").matches("ab")).isFalse();
    assertThat(new NameGlob("*").matches("")).isTrue();
    assertThat(new NameGlob("a*b*c").matches("a-b-b-c")).isTrue();
  }

  @Test
  void keyPattern_encodesBracesAndPercent_widensOneCharacterWildcards_andEscapesThePrefix() {
    assertThat(new NameGlob("jobs:*").keyPattern("relock:")).isEqualTo("relock:{*jobs:*}");
    assertThat(new NameGlob("a{b}?").keyPattern("relock:")).isEqualTo("relock:{*a%7Bb%7D*}");
    assertThat(new NameGlob("50%[0-9]").keyPattern("p*")).isEqualTo("p\\*{*50%25*}");
    assertThat(new NameGlob("a\\{\\*").keyPattern("")).isEqualTo("{*a%7B\\*}");
  }

  @Test
  void badPatterns_areRejectedNamingThem() {
    assertThatThrownBy(() -> new NameGlob("")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("empty");
    assertThatThrownBy(() -> new NameGlob("a[bc")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'a[bc'");
  }

  @Test
  void nameOf_undoesTheKeysEncoding() {
    for (String name : new String[] {"plain", "a{b}c", "50%", "%7B", "%{}%"}) {
      assertThat(LockInspector.nameOf("relock:", LockKeys.of("relock:", name).lock())).isEqualTo(name);
    }
  }
}

package io.relock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class RedisAclTest {

  @Test
  void theOperationsGuide_quotesExactlyTheRuleTheTestsUse() throws Exception {
    String guide = Files.readString(Path.of("..", "docs", "operations.md"));
    assertThat(guide).contains("ACL SETUSER locks on >password " + RedisAcl.RULE + "\n");
  }

  @Test
  void rule_putsTheKeyPrefixInTheKeyAndChannelPatterns_escapingGlobCharacters() {
    assertThat(RedisAcl.rule("relock:")).isEqualTo(RedisAcl.RULE);
    assertThat(RedisAcl.rule("app:locks:")).startsWith("resetchannels ~app:locks:* &app:locks:* +@connection ")
        .endsWith(RedisAcl.RULE.substring(RedisAcl.RULE.indexOf(" +@connection")));
    assertThat(RedisAcl.rule("a*[b]")).startsWith("resetchannels ~a\\*\\[b\\]* &a\\*\\[b\\]* ");
  }

  @Test
  void rule_refusesAPrefixAnAclRuleCannotHold() {
    assertThatThrownBy(() -> RedisAcl.rule("my locks:")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'my locks:'");
  }
}

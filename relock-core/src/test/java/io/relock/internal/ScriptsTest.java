package io.relock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.testkit.RedisExtension;
import io.relock.testkit.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class ScriptsTest {
  @RegisterExtension static final RedisExtension redis = new RedisExtension();

  @Test
  void everyScriptsSha1_matchesWhatScriptLoadReturns(RedisServer server) {
    for (LuaScript script : Scripts.ALL) {
      assertThat(server.execute("SCRIPT", "LOAD", script.source())).as(script.name()).isEqualTo(script.sha1());
    }
  }

  @Test
  void includes_areInlined_andEveryScriptDocumentsItsKeysArgsAndReplies() {
    assertThat(Scripts.ACQUIRE.source()).doesNotContainPattern("(?m)^-- @include ").contains("local function grant_next");
    assertThat(Scripts.RELEASE.source()).doesNotContainPattern("(?m)^-- @include ").contains("local function grant_next");
    for (LuaScript script : Scripts.ALL) {
      assertThat(script.source()).as(script.name()).startsWith("-- " + script.name() + ".lua:")
          .contains("KEYS[").contains("Returns");
    }
  }

  @Test
  void sha1_isLowerCaseHexOfTheText() {
    assertThat(LuaScript.sha1Hex("return 1")).isEqualTo("e0e1f9fabfc9d4800c877a703b823ac0578ff8db");
  }
}

package io.relock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What relock adds to Redis's ACL refusals; the refusals themselves are in AclContract. */
class PermissionDenialTest {

  private static int lineOf(LuaScript script, String text) {
    String[] lines = script.source().split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      if (lines[i].contains(text)) {
        return i + 1;
      }
    }
    throw new AssertionError(text + " not in " + script);
  }

  @Test
  void aRefusalInsideAScript_namesTheCommandOnTheLineRedisReports_in70And62Form() {
    int line = lineOf(Scripts.LOCK_INFO, "redis.call('ZRANGE'");
    String redis70 = "ERR The user executing the script can't run this command or subcommand script: abc, on @user_script:"
        + line + ".";
    String redis62 = "ERR Error running script (call to f_abc): @user_script:" + line
        + ": @user_script: " + line + ": The user executing the script can't run this command or subcommand";
    assertThat(PermissionDenial.explain(Scripts.LOCK_INFO, redis70)).contains("does not allow ZRANGE in lock_info.lua");
    assertThat(PermissionDenial.explain(Scripts.LOCK_INFO, redis62)).contains("does not allow ZRANGE in lock_info.lua");
  }

  @Test
  void aRefusalOfTheCallItself_namesTheCommandOrTheKeys() {
    assertThat(PermissionDenial.explain(Scripts.ACQUIRE, "NOPERM this user has no permissions to run the 'evalsha' command"))
        .contains("does not allow EVALSHA;");
    assertThat(PermissionDenial.explain(Scripts.ACQUIRE,
        "NOPERM this user has no permissions to access one of the keys used as arguments"))
        .contains("does not allow the keys acquire.lua is called with");
  }

  @Test
  void otherErrors_getNothingAdded() {
    assertThat(PermissionDenial.explain(Scripts.ACQUIRE, "WRONGTYPE Operation against a key holding the wrong kind of value"))
        .isEmpty();
  }
}

package io.relock.spi;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The replies below are what redis-server 6.2.11 and 7.0.15 answered to the same scripts. */
class RedisReplyExceptionTest {

  @Test
  void redis62sWrappingOfAnErrorMetByAScript_readsAsRedis7WordsIt() {
    String on62 = "ERR Error running script (call to f_bd6f3018b28bbdb36260f19d3c44afed740db987): @user_script:1:"
        + " @user_script: 1: -READONLY You can't write against a read only replica. ";
    String on70 = "READONLY You can't write against a read only replica. script: bd6f3018b28bbdb36260f19d3c44afed740db987,"
        + " on @user_script:1.";
    assertThat(new RedisReplyException(on62).getMessage()).isEqualTo(on70);
    assertThat(new RedisReplyException(on70).getMessage()).isEqualTo(on70);
  }

  @Test
  void otherReplies_areLeftAsTheyAre() {
    String raised = "ERR Error running script (call to f_30f87ed4c801fd88dfb06e11f0d61da7666fe4da): @user_script:1:"
        + " user_script:1: WRONGKIND the name is a semaphore";
    String denied = "ERR Error running script (call to f_bd6f3018b28bbdb36260f19d3c44afed740db987): @user_script:1:"
        + " @user_script: 1: The user executing the script can't run this command or subcommand";
    assertThat(RedisReplyException.unwrapScriptError(raised)).isEqualTo(raised);
    assertThat(RedisReplyException.unwrapScriptError(denied)).isEqualTo(denied);
    assertThat(RedisReplyException.unwrapScriptError("NOSCRIPT No matching script.")).isEqualTo("NOSCRIPT No matching script.");
    assertThat(RedisReplyException.unwrapScriptError(null)).isNull();
  }
}

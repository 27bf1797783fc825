package io.relock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Names and key prefixes made of relock's key separators, on one Redis (see {@link OddNames}). */
public abstract class OddNamesContract extends RelockContract {

  @Test
  void everyKind_underNamesAndPrefixesMadeOfKeySeparators_isRenewedAndReleased_touchingNoOtherKey() {
    redis("HSET", "jobs", "field", "value");
    redis("SET", "relock:{order", "semaphore 2");
    redis("SET", "app:q:r:w:{rw", "readwrite");

    OddNames.holdAcrossRenewals(prefix -> client(b -> b.keyPrefix(prefix).defaultLease(OddNames.LEASE)), true);

    for (String other : List.of("jobs", "relock:{order", "app:q:r:w:{rw")) {
      assertThat(redis("PTTL", other)).as(other + " left without an expiry").isEqualTo(-1L);
    }
    for (Object key : (List<?>) redis("KEYS", "*")) {
      if (!List.of("jobs", "relock:{order", "app:q:r:w:{rw").contains(key)) {
        assertThat(redis("PTTL", (String) key)).as("expiry of " + key).isNotEqualTo(-1L);
      }
    }
  }
}

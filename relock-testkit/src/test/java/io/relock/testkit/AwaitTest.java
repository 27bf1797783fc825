package io.relock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class AwaitTest {

  @Test
  void returnsOnceTheConditionHolds_askingAgainUntilThen() {
    AtomicInteger asked = new AtomicInteger();
    Await.until("the third time", () -> asked.incrementAndGet() >= 3);
    assertThat(asked).hasValue(3);
  }

  @Test
  void anInterruptedWait_failsNamingTheCondition_andKeepsTheInterrupt() {
    Thread.currentThread().interrupt();
    try {
      assertThatThrownBy(() -> Await.until("a condition that never holds", () -> false))
          .isInstanceOf(AssertionError.class).hasMessageContaining("a condition that never holds");
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
  }
}

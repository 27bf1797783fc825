package io.relock.torture;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Who holds a lock across the masters, and which holds losing one master erases. */
class LockViewTest {
  private static final LockView.Entry X = new LockView.Entry("c1:1", "41");
  private static final LockView.Entry Y = new LockView.Entry("c2:1", "42");

  private static LockView view(LockView.Entry... entries) {
    return new LockView("a", Arrays.asList(entries));
  }

  @Test
  void holder_isWhatAMajorityAgreesOn() {
    assertThat(view(X, X, null).holder()).isEqualTo(X);
    assertThat(view(X, Y, null).holder()).isNull();
    assertThat(view(null, Y, Y).holder()).isEqualTo(Y);
    assertThat(view(X, new LockView.Entry("c1:1", "40"), null).holder()).as("the same owner, another grant").isNull();
    assertThat(view(X).holder()).as("one server").isEqualTo(X);
    assertThat(view((LockView.Entry) null).holder()).isNull();
  }

  @Test
  void losingAMaster_erasesAHoldOnExactlyAMajorityWithIt() {
    assertThat(view(X, X, null).erasedByLosing(0)).isEqualTo(X);
    assertThat(view(X, X, Y).erasedByLosing(1)).isEqualTo(X);
    assertThat(view(X, X, X).erasedByLosing(0)).as("still on two of three").isNull();
    assertThat(view(X, X, null).erasedByLosing(2)).as("not on the lost master").isNull();
    assertThat(view(X, null, null).erasedByLosing(0)).as("a stray key is no hold, but erasing it harms nobody")
        .isEqualTo(X);
    assertThat(view(new LockView.Entry("c1:1", "0"), new LockView.Entry("c1:1", "0"), null).erasedByLosing(0))
        .as("a grant whose token is not written yet").isNull();
  }

  @Test
  void nodesHeldBy_countsTheOwnersGrants_fencedOrNot() {
    LockView.Entry unfenced = new LockView.Entry("c1:1", "0");

    assertThat(view(null, X, unfenced).nodesHeldBy("c1:1")).as("a third master still taking the token").isEqualTo(2);
    assertThat(view(null, X, Y).nodesHeldBy("c1:1")).isEqualTo(1);
    assertThat(view(null, null, null).nodesHeldBy("c1:1")).isZero();
  }
}

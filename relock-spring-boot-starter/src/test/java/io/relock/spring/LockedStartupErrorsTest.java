package io.relock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.LockLease;
import io.relock.testkit.RedisExtension;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * A @Locked method that cannot work fails startup with a message naming the method and what is
 * wrong, instead of running without its lock.
 */
class LockedStartupErrorsTest {

  @RegisterExtension static final RedisExtension redis = new RedisExtension();

  static class PrivateMethod {
    @Locked("'x'")
    private void hidden() {}

    public void callsHidden() {
      hidden();
    }
  }

  static class FinalMethod {
    @Locked("'x'")
    public final void sealed() {}
  }

  static final class FinalClass {
    @Locked("'x'")
    public void inASealedClass() {}
  }

  static class LockedBase {
    @Locked("'x'")
    public void inherited() {}
  }

  static final class FinalSubclass extends LockedBase {}

  static class BadSyntax {
    @Locked("'order:' + ")
    public void broken(String id) {}
  }

  static class UnknownVariable {
    @Locked("'order:' + #ordr.id")
    public void misspelt(Object order) {}
  }

  static class UnknownBean {
    @Locked("@nobody.name()")
    public void noSuchBean() {}
  }

  static class SkipReturningInt {
    @Locked(value = "'x'", onTimeout = Locked.OnTimeout.SKIP)
    public int count() {
      return 1;
    }
  }

  static class FixedLeaseOnFuture {
    @Locked(value = "'x'", lease = "10s")
    public CompletableFuture<String> later() {
      return CompletableFuture.completedFuture("x");
    }
  }

  static class TwoLeases {
    @Locked("'x'")
    public void twice(LockLease a, LockLease b) {}
  }

  static class NotADuration {
    @Locked(value = "'x'", waitTime = "soon")
    public void whenever() {}
  }

  static class NegativeWait {
    @Locked(value = "'x'", waitTime = "-1s")
    public void backwards() {}
  }

  static class MissingPlaceholder {
    @Locked(value = "'x'", waitTime = "${no.such.setting}")
    public void unset() {}
  }

  static class CallbackWithoutHandler {
    @Locked(value = "'x'", onLost = Locked.OnLost.CALLBACK)
    public void nobodyListens() {}
  }

  static class HoldLongerThanLease {
    @Locked(value = "'x'", lease = "5s", holdAtLeast = "10s")
    public void tooLong() {}
  }

  static class ReturnsPlainFuture {
    @Locked("'x'")
    public Future<String> unwaitable() {
      return CompletableFuture.completedFuture("x");
    }
  }

  static class ScheduledReturningInt {
    @Scheduled(fixedDelay = 60_000)
    @Locked("'x'")
    public int job() {
      return 1;
    }
  }

  static class InterruptOnLostMono {
    @Locked(value = "'x'", interruptOnLost = true)
    public reactor.core.publisher.Mono<String> publisher() {
      return reactor.core.publisher.Mono.just("x");
    }
  }

  /** A Kotlin {@code suspend fun charge(id: String): String} as it compiles: a continuation last, Object returned. */
  static class SuspendFunction {
    @Locked("'x'")
    public Object charge(String id, kotlin.coroutines.Continuation<? super String> continuation) {
      return "charged";
    }
  }

  static Stream<Arguments> mistakes() {
    return Stream.of(
        Arguments.of(PrivateMethod.class, "PrivateMethod.hidden()", "it is private"),
        Arguments.of(FinalMethod.class, "FinalMethod.sealed()", "it is final"),
        Arguments.of(FinalClass.class, "FinalClass.inASealedClass()", "is of the final class"),
        Arguments.of(FinalSubclass.class, "LockedBase.inherited()", "is of the final class"),
        Arguments.of(BadSyntax.class, "BadSyntax.broken(String)", "is not a valid SpEL expression"),
        Arguments.of(UnknownVariable.class, "UnknownVariable.misspelt(Object)",
            "uses #ordr, which the method does not have: the parameters are #order"),
        Arguments.of(UnknownBean.class, "UnknownBean.noSuchBean()", "refers to @nobody, but there is no such bean"),
        Arguments.of(SkipReturningInt.class, "SkipReturningInt.count()", "onTimeout SKIP cannot return a int"),
        Arguments.of(FixedLeaseOnFuture.class, "FixedLeaseOnFuture.later()", "a fixed lease (PT10S) works only"),
        Arguments.of(TwoLeases.class, "TwoLeases.twice(LockLease, LockLease)", "two LockLease parameters"),
        Arguments.of(NotADuration.class, "NotADuration.whenever()", "waitTime 'soon' is not a duration"),
        Arguments.of(NegativeWait.class, "NegativeWait.backwards()", "waitTime must be zero or more, was '-1s'"),
        Arguments.of(MissingPlaceholder.class, "MissingPlaceholder.unset()", "no.such.setting"),
        Arguments.of(CallbackWithoutHandler.class, "CallbackWithoutHandler.nobodyListens()",
            "there is none"),
        Arguments.of(HoldLongerThanLease.class, "HoldLongerThanLease.tooLong()", "holdAtLeast (PT10S) is longer"),
        Arguments.of(ReturnsPlainFuture.class, "ReturnsPlainFuture.unwaitable()",
            "returns java.util.concurrent.Future, which @Locked cannot wait for"),
        Arguments.of(ScheduledReturningInt.class, "ScheduledReturningInt.job()",
            "SKIP is the default on @Scheduled methods"),
        Arguments.of(InterruptOnLostMono.class, "InterruptOnLostMono.publisher()",
            "interruptOnLost works on methods returning a value, void or a future"),
        Arguments.of(SuspendFunction.class, "SuspendFunction.charge(String, Continuation)",
            "it is a Kotlin suspend function"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("mistakes")
  void aLockedMethodThatCannotWork_failsStartupNamingIt(Class<?> bean, String method, String why) {
    Apps.on(redis.server()).withBean(bean).run(context -> {
      assertThat(context).hasFailed();
      IllegalStateException cause = RelockPropertiesErrorsTest.find(context.getStartupFailure(),
          IllegalStateException.class);
      assertThat(cause).as("%s", context.getStartupFailure()).isNotNull();
      assertThat(cause.getMessage()).contains("@Locked on " + LockedStartupErrorsTest.class.getName() + "$" + method)
          .contains(why);
    });
  }

  static class Fine {
    @Locked("'fine'")
    public void fine() {}
  }

  @Test
  void aLockedMethodWithoutARelockBean_failsStartupNamingTheMethod() {
    Apps.on(redis.server()).withPropertyValues("relock.enabled=false").withBean(Fine.class).run(context -> {
      assertThat(context).hasFailed();
      IllegalStateException cause = RelockPropertiesErrorsTest.find(context.getStartupFailure(),
          IllegalStateException.class);
      assertThat(cause.getMessage()).contains("Fine.fine()").contains("needs a Relock bean");
    });
  }
}

package io.relock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.testkit.RedisExtension;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * @Locked methods called from virtual threads exclude each other like platform threads, and with
 * spring.threads.virtual.enabled the starter's executor runs virtual threads. Needs Java 21+;
 * {@code verify} runs it on Java 25 where installed (see the pom's virtual-threads profile).
 */
class LockedVirtualThreadsTest {

  @RegisterExtension static final RedisExtension redis = new RedisExtension();

  private static final int CALLERS = 16;

  static class Counter {
    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger mostInside = new AtomicInteger();
    private final AtomicInteger calls = new AtomicInteger();
    private final List<Boolean> virtual = new java.util.concurrent.CopyOnWriteArrayList<>();

    public int mostInside() {
      return mostInside.get();
    }

    public int calls() {
      return calls.get();
    }

    public List<Boolean> ranOnVirtualThreads() {
      return virtual;
    }

    @Locked(value = "'virtual'", waitTime = "60s")
    public void increment() {
      mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
      Thread.yield();
      calls.incrementAndGet();
      inside.decrementAndGet();
    }

    @Locked(value = "'virtual-async'", waitTime = "60s")
    public CompletableFuture<Boolean> onWhichThread() throws Exception {
      boolean isVirtual = (Boolean) Thread.class.getMethod("isVirtual").invoke(Thread.currentThread());
      virtual.add(isVirtual);
      return CompletableFuture.completedFuture(isVirtual);
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class CounterApp {
    @Bean
    Counter counter() {
      return new Counter();
    }
  }

  private static Method ofVirtual() {
    try {
      return Thread.class.getMethod("ofVirtual");
    } catch (NoSuchMethodException e) {
      Assumptions.abort("virtual threads need Java 21+; running on " + Runtime.version());
      return null;
    }
  }

  @Test
  void callersOnVirtualThreads_holdTheLockOneAtATime() throws Exception {
    Method ofVirtual = ofVirtual();
    Apps.on(redis.server()).withUserConfiguration(CounterApp.class)
        .withPropertyValues("spring.threads.virtual.enabled=true").run(context -> {
          Counter counter = context.getBean(Counter.class);
          Object builder = ofVirtual.invoke(null);
          Method start = Class.forName("java.lang.Thread$Builder").getMethod("start", Runnable.class);
          List<Thread> threads = new ArrayList<>();
          for (int i = 0; i < CALLERS; i++) {
            threads.add((Thread) start.invoke(builder, (Runnable) counter::increment));
          }
          for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(60));
            assertThat(t.isAlive()).as("a caller is stuck").isFalse();
          }
          assertThat(counter.calls()).isEqualTo(CALLERS);
          assertThat(counter.mostInside()).isEqualTo(1);

          assertThat(counter.onWhichThread().get(30, TimeUnit.SECONDS))
              .as("async @Locked methods run on the executor's virtual threads").isTrue();
        });
  }
}

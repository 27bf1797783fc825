package io.relock.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.Relock;
import io.relock.spring.LockedAutoConfiguration;
import io.relock.spring.RelockAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The snippet of docs/spring-boot.md, in an application with the starter's auto-configuration. */
class SpringBootTest {

  @Test
  void paymentsTakeTheOrdersLock_andTheJobTheSettleLock() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(RelockAutoConfiguration.class, LockedAutoConfiguration.class))
        .withPropertyValues("spring.data.redis.url=" + DocsRedis.uri(), "relock.key-prefix=docs-spring:")
        .withBean(Ledger.class)
        .withUserConfiguration(Payments.class)
        .run(app -> {
          Payments payments = app.getBean(Payments.class);
          Receipt first = payments.pay(new Order("o-1", "acct-1", 30), null);
          Receipt second = payments.pay(new Order("o-2", "acct-1", 20), null);
          assertThat(second.balance()).isEqualTo(-50);
          assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());

          payments.settle();
          Relock relock = app.getBean(Relock.class);
          assertThat(app.getBean(Ledger.class).settlements).singleElement();
          assertThat(relock.lock("settle").isLocked()).as("held at least 30 s after the run").isTrue();
        });
  }
}

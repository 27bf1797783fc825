package io.relock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.testkit.RedisExtension;
import io.relock.testkit.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Lock names from SpEL over the arguments, beans, placeholders and the method; errors at call time. */
class LockedNamesTest {

  @RegisterExtension static final RedisExtension redis = new RedisExtension();

  record Order(String id) {}

  /** Each method answers the name of the lock it holds, as Redis has it. */
  static class Names {
    private final RedisServer server;

    Names(RedisServer server) {
      this.server = server;
    }

    private String held() {
      String name = CurrentLease.get().lockName();
      if (!Apps.isLockedInRedis(server, name)) {
        throw new AssertionError("Redis does not hold " + name);
      }
      return name;
    }

    @Locked("'order:' + #order.id")
    public String byParameterName(Order order) {
      return held();
    }

    @Locked("'pos:' + #p0 + ':' + #a1")
    public String byPosition(String a, int b) {
      return held();
    }

    @Locked("@tenant.name() + ':' + #id")
    public String withABean(long id) {
      return held();
    }

    @Locked("'${shop.name}-' + #id")
    public String withAPlaceholder(long id) {
      return held();
    }

    @Locked("#root.method.name + ':' + #root.args.length")
    public String fromTheRoot(String ignored) {
      return held();
    }

    @Locked
    public String unnamed() {
      return held();
    }

    @Locked("#order.id")
    public String ofANullableOrder(Order order) {
      return held();
    }
  }

  /** A bean the expressions refer to. */
  public static class Tenant {
    public String name() {
      return "acme";
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class NamesApp {
    @Bean
    Names names() {
      return new Names(redis.server());
    }

    @Bean
    Tenant tenant() {
      return new Tenant();
    }
  }

  @Test
  void theLockNameIsTheExpressionsValue() {
    Apps.on(redis.server()).withUserConfiguration(NamesApp.class).withPropertyValues("shop.name=north").run(context -> {
      Names names = context.getBean(Names.class);
      assertThat(names.byParameterName(new Order("42"))).isEqualTo("order:42");
      assertThat(names.byPosition("x", 7)).isEqualTo("pos:x:7");
      assertThat(names.withABean(5)).isEqualTo("acme:5");
      assertThat(names.withAPlaceholder(5)).isEqualTo("north-5");
      assertThat(names.fromTheRoot("y")).isEqualTo("fromTheRoot:1");
      assertThat(names.unnamed()).isEqualTo(Names.class.getName() + ".unnamed");
      assertThat(Apps.isLockedInRedis(redis.server(), "order:42")).as("released after the call").isFalse();
    });
  }

  @Test
  void anExpressionThatFailsOrGivesNothing_failsTheCallNamingTheMethod_andRunsNothing() {
    Apps.on(redis.server()).withUserConfiguration(NamesApp.class).withPropertyValues("shop.name=north").run(context -> {
      Names names = context.getBean(Names.class);
      assertThatThrownBy(() -> names.ofANullableOrder(null))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("\"#order.id\"")
          .hasMessageContaining("ofANullableOrder");
      assertThatThrownBy(() -> names.ofANullableOrder(new Order(null)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("gave null");
      assertThatThrownBy(() -> names.ofANullableOrder(new Order(" ")))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("blank");
    });
  }
}

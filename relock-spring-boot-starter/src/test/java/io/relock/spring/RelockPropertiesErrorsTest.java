package io.relock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Settings that cannot work fail startup before anything connects, with Spring Boot's "invalid
 * value for configuration property" naming the property; passwords never appear.
 */
class RelockPropertiesErrorsTest {

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(RelockAutoConfiguration.class));

  static Stream<Arguments> mistakes() {
    return Stream.of(
        Arguments.of("spring.data.redis.url", "must start with redis://",
            new String[] {"spring.data.redis.url=http://user:hunter2@localhost:6379"}),
        // A raw space in the password: free-text redaction would end the URI there and show the rest.
        Arguments.of("spring.data.redis.url", "must start with redis://",
            new String[] {"spring.data.redis.url=http://user:x hunter2@localhost:6379"}),
        Arguments.of("spring.data.redis.port", "between 1 and 65535", new String[] {"spring.data.redis.port=0"}),
        Arguments.of("spring.data.redis.host", "must name", new String[] {"spring.data.redis.host= "}),
        Arguments.of("spring.data.redis.username", "needs spring.data.redis.password",
            new String[] {"spring.data.redis.username=app"}),
        Arguments.of("spring.data.redis.ssl.bundle", "SSL bundles",
            new String[] {"spring.data.redis.ssl.bundle=client"}),
        Arguments.of("spring.data.redis.sentinel.nodes", "must list the sentinels",
            new String[] {"spring.data.redis.sentinel.master=mymaster"}),
        Arguments.of("spring.data.redis.sentinel.master", "must name the primary",
            new String[] {"spring.data.redis.sentinel.nodes=127.0.0.1:26379"}),
        Arguments.of("spring.data.redis.sentinel.nodes", "host:port",
            new String[] {"spring.data.redis.sentinel.master=m", "spring.data.redis.sentinel.nodes=127.0.0.1"}),
        Arguments.of("spring.data.redis.sentinel.username", "needs spring.data.redis.sentinel.password",
            new String[] {"spring.data.redis.sentinel.master=m", "spring.data.redis.sentinel.nodes=127.0.0.1:26379",
                "spring.data.redis.sentinel.username=watcher", "spring.data.redis.password=hunter2"}),
        Arguments.of("spring.data.redis.cluster.nodes", "is not a port",
            new String[] {"spring.data.redis.cluster.nodes=127.0.0.1:seven"}),
        Arguments.of("spring.data.redis.database", "only database 0",
            new String[] {"spring.data.redis.cluster.nodes=127.0.0.1:7000", "spring.data.redis.database=2"}),
        Arguments.of("relock.default-lease", "at least 1 ms", new String[] {"relock.default-lease=0s"}),
        Arguments.of("relock.command-timeout", "must be positive", new String[] {"relock.command-timeout=-1s"}),
        Arguments.of("relock.connect-timeout", "must be positive", new String[] {"relock.connect-timeout=0ms"}),
        Arguments.of("relock.recheck-interval", "must be positive", new String[] {"relock.recheck-interval=0s"}),
        Arguments.of("relock.fence-retention", "must be positive", new String[] {"relock.fence-retention=0d"}),
        Arguments.of("relock.clock-drift", "must not be negative", new String[] {"relock.clock-drift=-5ms"}),
        Arguments.of("relock.key-prefix", "over the limit", new String[] {"relock.key-prefix=" + "k".repeat(300)}),
        Arguments.of("relock.driver", "no such relock driver on the class path; found [",
            new String[] {"relock.driver=netty"}),
        Arguments.of("relock.redlock.nodes", "at least 3", new String[] {"relock.redlock.nodes=redis://a:1,redis://b:2"}),
        Arguments.of("relock.redlock.restart-delay", "only together with relock.redlock.nodes",
            new String[] {"relock.redlock.restart-delay=1m"}),
        Arguments.of("relock.replica-acks.replicas", "0 (off) or more",
            new String[] {"relock.replica-acks.replicas=-1"}),
        Arguments.of("relock.replica-acks.timeout", "shorter than relock.command-timeout",
            new String[] {"relock.replica-acks.replicas=1", "relock.replica-acks.timeout=3s"}),
        Arguments.of("relock.replica-acks.replicas", "independent masters",
            new String[] {"relock.replica-acks.replicas=1",
                "relock.redlock.nodes=redis://a:1,redis://b:2,redis://c:3"}));
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("mistakes")
  void aSettingThatCannotWork_failsStartupNamingTheProperty(String property, String reason, String[] settings) {
    runner.withPropertyValues(settings).run(context -> {
      assertThat(context).hasFailed();
      InvalidConfigurationPropertyValueException invalid = find(context.getStartupFailure(),
          InvalidConfigurationPropertyValueException.class);
      assertThat(invalid).as("the failure names a property: %s", context.getStartupFailure()).isNotNull();
      assertThat(invalid.getName()).isEqualTo(property);
      assertThat(invalid.getReason()).contains(reason);
      assertThat(invalid.getMessage()).doesNotContain("hunter2");
    });
  }

  @Test
  void aValueOfTheWrongType_failsBindingNamingTheProperty() {
    runner.withPropertyValues("relock.default-lease=soon").run(context -> {
      BindException bind = find(context.getStartupFailure(), BindException.class);
      assertThat(bind).isNotNull();
      assertThat(bind.getName()).hasToString("relock.default-lease");
      assertThat(bind.getProperty().getValue()).isEqualTo("soon");
    });
  }

  static <T extends Throwable> T find(Throwable t, Class<T> type) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (type.isInstance(c)) {
        return type.cast(c);
      }
    }
    return null;
  }
}

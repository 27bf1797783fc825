package io.relock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionContext;

/** Drives the extension's callbacks directly, to check that the server goes away after the class. */
class RedisExtensionLifecycleTest {

    @Test
    void afterAll_ofTheOutermostClass_closesTheServer() {
        RedisExtension extension = RedisExtension.withPersistence();
        ExtensionContext context = null;  // the extension does not look at the context

        extension.beforeAll(context);
        RedisServer server = extension.server();
        long pid = server.pid();
        assertThat(server.execute("CONFIG", "GET", "appendonly")).isEqualTo(List.of("appendonly", "yes"));
        extension.beforeAll(context);  // as for a @Nested class
        extension.afterAll(context);
        assertThat(server.isRunning()).as("still used by the outer class").isTrue();

        extension.afterAll(context);

        assertThat(Poll.isDead(pid)).isTrue();
        assertThat(server.dataDir()).doesNotExist();
        assertThat(extension.server()).as("a later use starts a fresh server").isNotSameAs(server);
        extension.afterAll(context);
    }
}

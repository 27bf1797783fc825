package io.relock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisExtensionTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static RedisServer seenByFirstTest;

    private final RedisServer injectedIntoConstructor;

    RedisExtensionTest(RedisServer server) {
        this.injectedIntoConstructor = server;
    }

    @Test
    @Order(1)
    void server_isRunningBeforeTheFirstTest_andInjected(RedisServer server) {
        assertThat(server).isSameAs(redis.server()).isSameAs(injectedIntoConstructor);
        assertThat(server.isRunning()).isTrue();
        server.execute("SET", "shared", "1");
        seenByFirstTest = server;
    }

    @Test
    @Order(2)
    void server_isSharedByTheTestsOfTheClass(RedisServer server) {
        assertThat(server).isSameAs(seenByFirstTest);
        assertThat(server.execute("GET", "shared")).isEqualTo("1");
    }

    @Nested
    class NestedTests {
        @Test
        void nestedClass_sharesTheOuterServer(RedisServer server) {
            assertThat(server).isSameAs(redis.server());
            assertThat(server.isRunning()).isTrue();
        }
    }

    @AfterAll
    static void serverStillRunsDuringAfterAll() {
        // Extension afterAll callbacks run after @AfterAll methods, so the server is still here.
        assertThat(redis.server().isRunning()).isTrue();
    }
}

package io.relock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class RedisMasterGroupTest {

    private static int port(String uri) {
        return URI.create(uri).getPort();
    }

    @Test
    void startsIndependentMasters_eachBehindItsOwnProxy() {
        try (RedisMasterGroup group = RedisMasterGroup.start(3)) {
            assertThat(group.size()).isEqualTo(3);
            assertThat(Arrays.stream(group.uris()).distinct()).hasSize(3);
            for (int i = 0; i < 3; i++) {
                assertThat(group.master(i).execute("ROLE").toString()).startsWith("[master");
                RawClient.call(port(group.proxiedUris()[i]), "SET", "k", "v" + i);
            }
            for (int i = 0; i < 3; i++) {
                assertThat(group.master(i).execute("GET", "k")).as("no replication between masters").isEqualTo("v" + i);
            }
        }
    }

    @Test
    void partition_dropsTrafficToOneMaster_andHealRestoresIt() {
        try (RedisMasterGroup group = RedisMasterGroup.start(3)) {
            group.partition(1);
            try (RespConnection c = RespConnection.open("127.0.0.1", port(group.proxiedUris()[1]), false,
                    java.time.Duration.ofMillis(300))) {
                assertThatThrownBy(() -> c.call("PING")).as("a partitioned master does not answer").isNotNull();
            } catch (java.io.IOException e) {
                // could not even open it: also cut off
            }
            assertThat(RawClient.call(port(group.proxiedUris()[0]), "PING")).isEqualTo("PONG");
            group.heal(1);
            assertThat(RawClient.call(port(group.proxiedUris()[1]), "PING")).isEqualTo("PONG");
        }
    }

    @Test
    void restartWithoutData_forgetsEverything_evenWithPersistence() {
        try (RedisMasterGroup group = RedisMasterGroup.start(3, b -> b.persistence(true))) {
            group.master(0).execute("SET", "kept", "1");
            group.master(1).execute("SET", "lost", "1");
            group.master(0).restart();
            group.master(1).restartWithoutData();
            assertThat(group.master(0).execute("GET", "kept")).as("persisted, restarted").isEqualTo("1");
            assertThat(group.master(1).execute("GET", "lost")).as("restarted without its data").isNull();
        }
    }

    @Test
    void aGroupNeedsAMaster() {
        assertThatThrownBy(() -> RedisMasterGroup.start(0)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("got 0");
    }
}

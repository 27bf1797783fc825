package io.relock.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;

/** One command on a fresh, unauthenticated connection: what a client that knows nothing would see. */
final class RawClient {

    private RawClient() {
    }

    static Object call(int port, String... args) {
        try (RespConnection connection = RespConnection.open("127.0.0.1", port, false, Duration.ofSeconds(5))) {
            return connection.call(args);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

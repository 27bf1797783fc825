package io.relock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class TcpProxyTest {

    private static final byte[] PING = "*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final String PONG = "+PONG\r\n";

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private TcpProxy proxy;

    @BeforeEach
    void startProxy() {
        proxy = TcpProxy.start(redis.server().host(), redis.server().port());
    }

    @AfterEach
    void closeProxy() {
        proxy.close();
    }

    @Test
    void passThrough_forwardsCommandsAndReplies() throws IOException {
        assertThat(proxy.uri()).isEqualTo("redis://127.0.0.1:" + proxy.port());
        assertThat(proxy.port()).isNotEqualTo(redis.server().port());
        try (RespConnection connection = open(Duration.ofSeconds(5))) {
            assertThat(connection.call("SET", "via-proxy", "yes")).isEqualTo("OK");
        }
        assertThat(redis.server().execute("GET", "via-proxy")).isEqualTo("yes");
    }

    @Test
    void passThrough_carriesLargeValuesIntact() throws IOException {
        String big = "x".repeat(1_000_000) + "end";
        try (RespConnection connection = open(Duration.ofSeconds(5))) {
            connection.call("SET", "big", big);
            assertThat(connection.call("GET", "big")).isEqualTo(big);
        }
    }

    @Test
    void cut_resetsOpenConnectionsAndRefusesNewOnes_untilRestore() throws IOException {
        try (Socket existing = socket(Duration.ofSeconds(5))) {
            assertThat(ping(existing)).isEqualTo(PONG);

            proxy.cut();

            long start = System.nanoTime();
            assertThatConnectionIsClosed(existing);
            try (Socket fresh = socket(Duration.ofSeconds(5))) {
                assertThatConnectionIsClosed(fresh);
            }
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
        }

        proxy.restore();

        try (Socket fresh = socket(Duration.ofSeconds(5))) {
            assertThat(ping(fresh)).isEqualTo(PONG);
        }
    }

    @Test
    void blackhole_keepsConnectionsOpenButDropsBytes_untilRestore() throws IOException {
        try (Socket existing = socket(Duration.ofMillis(500))) {
            assertThat(ping(existing)).isEqualTo(PONG);

            proxy.blackhole();

            existing.getOutputStream().write(PING);
            assertThatThrownBy(() -> existing.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
            try (Socket fresh = socket(Duration.ofMillis(500))) {
                fresh.getOutputStream().write(PING);
                assertThatThrownBy(() -> fresh.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
            }

            proxy.restore();

            // The PING sent during the blackhole was dropped, not held back: exactly one PONG now.
            existing.setSoTimeout(5000);
            assertThat(ping(existing)).isEqualTo(PONG);
            existing.setSoTimeout(300);
            assertThatThrownBy(() -> existing.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
        }
    }

    @Test
    void blackhole_hidesTheTargetGoingAway() throws IOException {
        try (RedisServer own = RedisServer.start();
                TcpProxy ownProxy = TcpProxy.start(own.host(), own.port());
                Socket existing = new Socket("127.0.0.1", ownProxy.port())) {
            existing.setSoTimeout(5000);
            assertThat(ping(existing)).isEqualTo(PONG);
            ownProxy.blackhole();

            own.kill();

            existing.setSoTimeout(500);
            assertThatThrownBy(() -> existing.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
        }
    }

    @Test
    void blackhole_newConnectionWhileTheTargetIsDown_timesOutInsteadOfFailing() throws IOException {
        try (RedisServer own = RedisServer.start(); TcpProxy ownProxy = TcpProxy.start(own.host(), own.port())) {
            own.kill();
            ownProxy.blackhole();
            try (Socket fresh = new Socket("127.0.0.1", ownProxy.port())) {
                fresh.setSoTimeout(500);
                fresh.getOutputStream().write(PING);
                assertThatThrownBy(() -> fresh.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);

                ownProxy.restore();

                assertThatConnectionIsClosed(fresh);
            }
        }
    }

    @Test
    void delay_addsLatencyInBothDirections() throws IOException {
        try (Socket socket = socket(Duration.ofSeconds(5))) {
            assertThat(ping(socket)).isEqualTo(PONG);
            proxy.delay(Duration.ofMillis(200));

            long start = System.nanoTime();
            assertThat(ping(socket)).isEqualTo(PONG);
            Duration took = Duration.ofNanos(System.nanoTime() - start);

            assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(400));
            proxy.restore();
            start = System.nanoTime();
            assertThat(ping(socket)).isEqualTo(PONG);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(300));
        }
    }

    @Test
    void delay_preservesOrder() throws IOException {
        redis.server().execute("DEL", "ordered");
        proxy.delay(Duration.ofMillis(20));
        int commands = 100;
        StringBuilder expected = new StringBuilder();
        try (Socket socket = socket(Duration.ofSeconds(10))) {
            OutputStream out = socket.getOutputStream();
            for (int i = 1; i <= commands; i++) {
                out.write("*2\r\n$4\r\nINCR\r\n$7\r\nordered\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                expected.append(':').append(i).append("\r\n");
            }
            assertThat(readExactly(socket.getInputStream(), expected.length())).isEqualTo(expected.toString());
        }
    }

    @Test
    void delay_rejectsNegativeLatency() {
        assertThatThrownBy(() -> proxy.delay(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-0.001");
    }

    @Test
    void close_closesConnectionsAndStopsListening() throws IOException {
        try (Socket existing = socket(Duration.ofSeconds(5))) {
            assertThat(ping(existing)).isEqualTo(PONG);

            proxy.close();

            assertThatConnectionIsClosed(existing);
            assertThat(forwardsNewConnection(proxy.port())).as("a connection made after close reaches Redis").isFalse();
        }
    }

    /**
     * Whether a new connection to the port reaches Redis. Refusal is the usual answer, but once the
     * listener is closed the port is free: the kernel may hand it to another socket, or connect a
     * client to itself when it picks the same ephemeral port, so "connect fails" cannot be asserted.
     * What must hold is that nothing behind the port answers as Redis.
     */
    private static boolean forwardsNewConnection(int port) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(2000);
            return ping(socket).equals(PONG);
        } catch (IOException refusedOrUnanswered) {
            return false;
        }
    }

    private RespConnection open(Duration timeout) throws IOException {
        return RespConnection.open("127.0.0.1", proxy.port(), false, timeout);
    }

    private Socket socket(Duration timeout) throws IOException {
        Socket socket = new Socket("127.0.0.1", proxy.port());
        socket.setSoTimeout((int) timeout.toMillis());
        return socket;
    }

    private static String ping(Socket socket) throws IOException {
        socket.getOutputStream().write(PING);
        return readExactly(socket.getInputStream(), PONG.length());
    }

    private static String readExactly(InputStream in, int length) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        while (bytes.size() < length) {
            int b = in.read();
            if (b < 0) {
                break;
            }
            bytes.write(b);
        }
        return bytes.toString(StandardCharsets.US_ASCII);
    }

    /** The peer closed or reset the connection: a read ends the stream or fails, and does not time out. */
    private static void assertThatConnectionIsClosed(Socket socket) throws IOException {
        socket.setSoTimeout(2000);
        try {
            socket.getOutputStream().write(PING);
            assertThat(socket.getInputStream().read()).isEqualTo(-1);
        } catch (SocketTimeoutException e) {
            throw new AssertionError("connection still open: the read timed out", e);
        } catch (IOException expected) {
            assertThat(expected.getMessage()).containsAnyOf("reset", "closed", "Broken pipe");
        }
    }
}

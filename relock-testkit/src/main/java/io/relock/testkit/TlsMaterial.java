package io.relock.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A throwaway CA and a server certificate for 127.0.0.1/localhost, made with the {@code openssl}
 * command once per JVM and deleted when the JVM exits.
 */
final class TlsMaterial {

    private static TlsMaterial generated;
    private static RuntimeException failure;

    final Path caCert;
    final Path serverCert;
    final Path serverKey;

    private TlsMaterial(Path dir) {
        this.caCert = dir.resolve("ca.crt");
        this.serverCert = dir.resolve("server.crt");
        this.serverKey = dir.resolve("server.key");
    }

    /**
     * The JVM's certificates, generated on first use.
     *
     * @throws IllegalStateException if openssl is missing or fails (the same failure on every call)
     */
    static synchronized TlsMaterial get() {
        if (generated == null && failure == null) {
            try {
                generated = generate();
            } catch (RuntimeException e) {
                failure = new IllegalStateException("cannot generate TLS certificates with openssl: "
                        + e.getMessage(), e);
            }
        }
        if (failure != null) {
            throw failure;
        }
        return generated;
    }

    private static TlsMaterial generate() {
        Path dir;
        try {
            Files.createDirectories(ProcessJanitor.BASE_DIR);
            dir = Files.createTempDirectory(ProcessJanitor.BASE_DIR, "tls-");
            ProcessJanitor.deleteOnExit(dir);
            Files.writeString(dir.resolve("server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ExternalCommand.runOrFail(dir, List.of("openssl", "req", "-x509", "-new", "-nodes",
                "-newkey", "rsa:2048", "-sha256", "-days", "3650",
                "-subj", "/CN=relock-testkit CA", "-keyout", "ca.key", "-out", "ca.crt"));
        ExternalCommand.runOrFail(dir, List.of("openssl", "req", "-new", "-nodes",
                "-newkey", "rsa:2048", "-sha256",
                "-subj", "/CN=127.0.0.1", "-keyout", "server.key", "-out", "server.csr"));
        ExternalCommand.runOrFail(dir, List.of("openssl", "x509", "-req", "-sha256", "-days", "3650",
                "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                "-extfile", "server.ext", "-out", "server.crt"));
        return new TlsMaterial(dir);
    }
}

package io.relock.testkit;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.net.URLConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;

/**
 * Finds the redis-server to run: {@value #ENV_VAR}, then the PATH, then the binary shipped in the
 * embedded-redis jar, extracted once into a cache directory shared by all JVMs on the machine.
 * {@value #ENV_VAR}={@value #EMBEDDED} asks for that last one even where the PATH has one, as a
 * machine without Redis would run.
 */
final class RedisBinary {

    static final String ENV_VAR = "RELOCK_REDIS_SERVER";
    /** The value of {@value #ENV_VAR} that chooses the embedded binary. */
    static final String EMBEDDED = "embedded";
    static final Path DEFAULT_CACHE_DIR = ProcessJanitor.BASE_DIR.resolve("bin");

    private static Located chosen;

    private RedisBinary() {
    }

    /** Where the binary was found, and how, for the one log line. */
    record Located(Path path, String source) {
    }

    /** The binary for this JVM, looked up once; the choice is logged to System.err. */
    static synchronized Path get() {
        if (chosen == null) {
            chosen = locate(System.getenv(ENV_VAR), System.getenv("PATH"),
                    System.getProperty("os.name"), System.getProperty("os.arch"), DEFAULT_CACHE_DIR);
            System.err.println("relock-testkit: using redis-server " + chosen.path() + " (" + chosen.source() + ")");
        }
        return chosen.path();
    }

    /**
     * The lookup itself, with every input explicit so tests can exercise each branch without
     * touching the real environment.
     *
     * @param envValue value of {@value #ENV_VAR}, or null
     * @param pathValue value of PATH, or null
     * @param cacheDir where an embedded binary is extracted
     */
    static Located locate(String envValue, String pathValue, String osName, String osArch, Path cacheDir) {
        boolean embeddedOnly = EMBEDDED.equals(envValue);
        if (envValue != null && !envValue.isBlank() && !embeddedOnly) {
            Path path = Path.of(envValue);
            if (!Files.isRegularFile(path) || !Files.isExecutable(path)) {
                throw new IllegalStateException(ENV_VAR + "=" + envValue + " is not an executable file");
            }
            return new Located(path, "from " + ENV_VAR);
        }
        Path onPath = embeddedOnly ? null : searchPath(pathValue);
        if (onPath != null) {
            return new Located(onPath, "from PATH");
        }
        String resource = embeddedResourceName(osName, osArch);
        if (resource == null) {
            throw new IllegalStateException("No redis-server found: " + ENV_VAR + " is not set, there is none on"
                    + " the PATH, and the embedded-redis jar ships no binary for os.name=" + osName
                    + ", os.arch=" + osArch + ". Install redis-server or point " + ENV_VAR + " at one.");
        }
        return new Located(extractEmbedded(resource, cacheDir),
                "embedded " + resource + (embeddedOnly ? ", as " + ENV_VAR + "=" + EMBEDDED + " asks" : ""));
    }

    private static Path searchPath(String pathValue) {
        if (pathValue == null) {
            return null;
        }
        for (String entry : pathValue.split(File.pathSeparator)) {
            if (entry.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(entry, "redis-server");
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    /** The resource name inside the embedded-redis jar for a platform, or null if it has none. */
    static String embeddedResourceName(String osName, String osArch) {
        String os = osName == null ? "" : osName.toLowerCase(Locale.ROOT);
        String arch = osArch == null ? "" : osArch.toLowerCase(Locale.ROOT);
        boolean amd64 = arch.equals("amd64") || arch.equals("x86_64");
        boolean arm64 = arch.equals("aarch64") || arch.equals("arm64");
        boolean x86 = arch.equals("x86") || arch.equals("i386") || arch.equals("i686");
        if (os.contains("linux")) {
            if (amd64) {
                return "redis-server-6.2.6-v5-linux-amd64";
            }
            if (arm64) {
                return "redis-server-6.2.7-linux-arm64";
            }
            if (x86) {
                return "redis-server-6.2.7-linux-386";
            }
        } else if (os.contains("mac") || os.contains("darwin")) {
            if (amd64) {
                return "redis-server-6.2.6-v5-darwin-amd64";
            }
            if (arm64) {
                return "redis-server-6.2.6-v5-darwin-arm64";
            }
        }
        return null;
    }

    /**
     * Copies the resource to {@code cacheDir/<resource>} unless a complete copy is already there.
     * Parallel JVMs may race here: each writes its own temporary file and renames it into place,
     * so a reader never sees a half-written binary.
     */
    static Path extractEmbedded(String resource, Path cacheDir) {
        URL url = RedisBinary.class.getResource("/" + resource);
        if (url == null) {
            throw new IllegalStateException("The embedded-redis jar is not on the class path (resource /"
                    + resource + " not found); install redis-server or set " + ENV_VAR);
        }
        Path target = cacheDir.resolve(resource);
        try {
            URLConnection connection = url.openConnection();
            long expectedSize = connection.getContentLengthLong();
            if (Files.isRegularFile(target) && Files.isExecutable(target)
                    && (expectedSize < 0 || Files.size(target) == expectedSize)) {
                return target;
            }
            Files.createDirectories(cacheDir);
            Path partial = Files.createTempFile(cacheDir, resource + "-", ".part");
            try {
                try (InputStream in = connection.getInputStream()) {
                    Files.copy(in, partial, StandardCopyOption.REPLACE_EXISTING);
                }
                Files.setPosixFilePermissions(partial, PosixFilePermissions.fromString("rwxr-xr-x"));
                Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } finally {
                Files.deleteIfExists(partial);
            }
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot extract " + resource + " to " + cacheDir, e);
        }
    }
}

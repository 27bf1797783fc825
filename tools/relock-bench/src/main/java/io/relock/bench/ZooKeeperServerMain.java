package io.relock.bench;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

/**
 * A standalone ZooKeeper server for {@code --compare}, in a JVM of its own (so that its CPU can be
 * measured and it shares nothing with the workers): curator-test's {@link TestingServer} on a free
 * loopback port, data in a temporary directory deleted at the end, ZooKeeper's defaults otherwise
 * (every write forced to disk before it is acknowledged). Prints {@value #READY} and the connect
 * string, then serves until its standard input closes.
 */
public final class ZooKeeperServerMain {

  static final String READY = "@zookeeper ";
  /**
   * ZooKeeper's tick: sessions may last from 2 to 20 ticks, so 2 s to 20 s here, which covers the
   * holder-death timeout of the compare run and the lease of the load scenarios (clamped to 20 s).
   */
  static final int TICK_MILLIS = 1000;

  private ZooKeeperServerMain() {}

  public static void main(String[] args) throws Exception {
    BenchMain.quietLogging();
    File data = Files.createTempDirectory("relock-bench-zookeeper").toFile();
    InstanceSpec spec = new InstanceSpec(data, -1, -1, -1, true, -1, TICK_MILLIS, -1);
    try (TestingServer server = new TestingServer(spec, true)) {
      System.out.println(READY + server.getConnectString());
      System.out.flush();
      // Until the harness closes our standard input (or dies).
      while (System.in.read() >= 0) {
        // Nothing is sent; reading only waits for the end.
      }
    } finally {
      deleteQuietly(data);
    }
  }

  private static void deleteQuietly(File dir) throws IOException {
    if (dir.exists()) {
      try (var paths = Files.walk(dir.toPath())) {
        paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }
}

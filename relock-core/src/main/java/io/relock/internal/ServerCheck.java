package io.relock.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a client checks about its server when it starts: that Redis is recent enough for relock's
 * scripts (6.2: {@code GETDEL}, {@code SET ... GET}), and whether it may evict keys. With
 * a {@code maxmemory-policy} that evicts ({@code allkeys-*} or {@code volatile-*}), Redis under
 * memory pressure can delete a held lock's key, and a second owner gets the lock while Redis looks
 * healthy. The check reads {@code INFO} from a script, which works where {@code CONFIG} is
 * disabled, as on most managed services; where even that fails, it is skipped.
 */
final class ServerCheck {
  private static final Logger log = LoggerFactory.getLogger(ServerCheck.class);

  private ServerCheck() {}

  /** The oldest Redis relock's scripts run on, as {major, minor}. */
  static final int[] OLDEST = {6, 2};

  /** Starts reading the server's version and eviction policy, for {@link #check} to judge. */
  static CompletableFuture<List<Object>> read(ScriptRunner scripts) {
    return scripts.run(Scripts.SERVER_INFO, List.of(), List.of(), "(server check)");
  }

  /**
   * Judges the server's version and eviction policy, as {@link #read} returns them.
   *
   * @throws io.relock.RelockException if the server is older than {@link #OLDEST}
   */
  static void check(CompletableFuture<List<Object>> reading, RelockSettings settings, String where) {
    String policy;
    String version;
    try {
      List<Object> info = reading.get(settings.connectTimeout().toMillis(), TimeUnit.MILLISECONDS);
      policy = String.valueOf(info.get(0));
      version = info.size() > 1 ? String.valueOf(info.get(1)) : "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      log.debug("could not read the server's version and maxmemory-policy; not checked: {}", e.toString());
      return;
    }
    if (tooOld(version)) {
      throw new io.relock.RelockException("relock needs Redis " + OLDEST[0] + "." + OLDEST[1] + " or later (its scripts"
          + " use GETDEL and SET ... GET); " + (where == null ? "the server" : where) + " runs " + version);
    }
    if (evicts(policy)) {
      log.warn("Redis may evict keys (maxmemory-policy {}): under memory pressure it can delete a held lock "
          + "and let a second owner take it. relock needs maxmemory-policy noeviction, or a Redis of its own.",
          policy);
    }
  }

  /** Whether {@code version} ("6.0.16") is older than {@link #OLDEST}; false if it cannot be read. */
  static boolean tooOld(String version) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("^(\\d+)\\.(\\d+)").matcher(version);
    if (!m.find()) {
      return false;
    }
    int major = Integer.parseInt(m.group(1));
    int minor = Integer.parseInt(m.group(2));
    return major < OLDEST[0] || (major == OLDEST[0] && minor < OLDEST[1]);
  }

  static boolean evicts(String policy) {
    return policy.startsWith("allkeys-") || policy.startsWith("volatile-");
  }
}

package io.relock.internal;

import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a client checks about its server when it starts. Today: whether Redis may evict keys. With
 * a {@code maxmemory-policy} that evicts ({@code allkeys-*} or {@code volatile-*}), Redis under
 * memory pressure can delete a held lock's key, and a second owner gets the lock while Redis looks
 * healthy. The check reads {@code INFO} from a script, which works where {@code CONFIG} is
 * disabled, as on most managed services; where even that fails, it is skipped.
 */
final class ServerCheck {
  private static final Logger log = LoggerFactory.getLogger(ServerCheck.class);

  private ServerCheck() {}

  static void warnAboutEviction(ScriptRunner scripts, RelockSettings settings) {
    String policy;
    try {
      List<Object> info = scripts.run(Scripts.SERVER_INFO, List.of(), List.of(), "(server check)")
          .get(settings.connectTimeout().toMillis(), TimeUnit.MILLISECONDS);
      policy = String.valueOf(info.get(0));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      log.debug("could not read the server's maxmemory-policy; not checked: {}", e.toString());
      return;
    }
    if (evicts(policy)) {
      log.warn("Redis may evict keys (maxmemory-policy {}): under memory pressure it can delete a held lock "
          + "and let a second owner take it. relock needs maxmemory-policy noeviction, or a Redis of its own.",
          policy);
    }
  }

  static boolean evicts(String policy) {
    return policy.startsWith("allkeys-") || policy.startsWith("volatile-");
  }
}

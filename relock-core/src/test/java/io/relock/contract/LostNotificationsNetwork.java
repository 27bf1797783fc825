package io.relock.contract;

import io.relock.spi.RedisDriver;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The common part of the contract tests' network shims: every call runs on the real driver,
 * against the real Redis, except what a subclass changes in {@link #evalSha}, and every
 * notification is lost (a test delivers the ones it needs). Only the methods every shim forwards
 * are forwarded here; the others keep {@link RedisDriver}'s defaults, as each shim had them.
 */
abstract class LostNotificationsNetwork implements RedisDriver {
  final RedisDriver real;

  LostNotificationsNetwork(RedisDriver real) {
    this.real = real;
  }

  @Override
  public CompletableFuture<String> scriptLoad(String script) {
    return real.scriptLoad(script);
  }

  @Override
  public CompletableFuture<Void> subscribe(String channel, Consumer<String> listener) {
    return real.subscribe(channel, message -> {}); // every notification is lost
  }

  @Override
  public void onReconnect(Runnable listener) {
    real.onReconnect(listener);
  }

  @Override
  public void close() {
    real.close();
  }
}

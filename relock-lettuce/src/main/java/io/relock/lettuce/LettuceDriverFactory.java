package io.relock.lettuce;

import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;
import io.relock.spi.RedisDriverFactory;
import io.relock.spi.RedisTarget;

/** Registered with {@link java.util.ServiceLoader}, so {@code Relock.connect(uri)} finds Lettuce. */
public final class LettuceDriverFactory implements RedisDriverFactory {
  /** Created by {@link java.util.ServiceLoader}, which finds this factory on the class path. */
  public LettuceDriverFactory() {}

  @Override
  public String name() {
    return "lettuce";
  }

  @Override
  public RedisDriver connect(String uri, DriverSettings settings) {
    return LettuceDriver.connect(uri, settings);
  }

  @Override
  public RedisDriver connect(RedisTarget target, DriverSettings settings) {
    return target.kind() == RedisTarget.Kind.CLUSTER
        ? LettuceClusterDriver.connect(target, settings)
        : LettuceDriver.connect(target, settings);
  }
}

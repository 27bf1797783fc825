package io.relock.internal;

import io.relock.DistributedLock;
import io.relock.DistributedReadWriteLock;

/** {@link DistributedReadWriteLock} over a {@link LockEngine}: its two lanes are {@link RedisLock}s. */
public final class RedisReadWriteLock implements DistributedReadWriteLock {
  private final String name;
  private final DistributedLock readLock;
  private final DistributedLock writeLock;

  public RedisReadWriteLock(LockEngine engine, String name) {
    engine.requireSharedKinds("a read-write lock");
    this.name = name;
    this.readLock = new RedisLock(engine, LockKind.READ, name);
    this.writeLock = new RedisLock(engine, LockKind.WRITE, name);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public DistributedLock readLock() {
    return readLock;
  }

  @Override
  public DistributedLock writeLock() {
    return writeLock;
  }

  @Override
  public String toString() {
    return "DistributedReadWriteLock[" + name + "]";
  }
}

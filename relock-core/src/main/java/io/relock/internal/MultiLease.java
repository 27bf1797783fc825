package io.relock.internal;

import io.relock.LockLease;
import io.relock.LockLostException;
import io.relock.RelockException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** The lease of a multi-lock ({@link RedisMultiLock}): the leases of every lock, held and closed together. */
final class MultiLease implements LockLease {
  private final String name;
  final List<LockLease> leases;

  MultiLease(String name, List<LockLease> leases) {
    this.name = name;
    this.leases = List.copyOf(leases);
  }

  /** Each lock's lease, in the order they were taken. */
  List<LockLease> leases() {
    return leases;
  }

  @Override
  public String lockName() {
    return name;
  }

  /** The largest of the locks' tokens; {@link #fencingTokens()} gives each lock's own. */
  @Override
  public long fencingToken() {
    return leases.stream().mapToLong(LockLease::fencingToken).max().orElse(0);
  }

  @Override
  public java.util.Map<String, Long> fencingTokens() {
    java.util.Map<String, Long> tokens = new java.util.LinkedHashMap<>();
    for (LockLease l : leases) {
      tokens.put(l.lockName(), l.fencingToken());
    }
    return java.util.Collections.unmodifiableMap(tokens);
  }

  @Override
  public boolean isValid() {
    return leases.stream().allMatch(LockLease::isValid);
  }

  @Override
  public Duration remaining() {
    return leases.stream().map(LockLease::remaining).min(Duration::compareTo).orElse(Duration.ZERO);
  }

  /** Runs once, when the first of the locks is found lost. */
  @Override
  public void onLost(Runnable listener) {
    java.util.Objects.requireNonNull(listener, "listener");
    java.util.concurrent.atomic.AtomicBoolean ran = new java.util.concurrent.atomic.AtomicBoolean();
    for (LockLease l : leases) {
      l.onLost(() -> {
        if (ran.compareAndSet(false, true)) {
          listener.run();
        }
      });
    }
  }

  /**
   * Extends each lock's lease in turn, in the order they were taken; the first failure stops it
   * and is thrown (the locks before it are extended, those after it are not).
   */
  @Override
  public void extend(Duration lease) {
    Checks.lease("lease", lease);
    for (LockLease l : leases) {
      l.extend(lease);
    }
  }

  /**
   * Closes every lock's lease after {@code keep}, as {@link #close()} releases them: each one,
   * even if one fails, then the first loss (or else the first other failure) is thrown.
   */
  @Override
  public void closeAfter(Duration keep) {
    java.util.Objects.requireNonNull(keep, "keep must not be null");
    if (keep.isZero() || keep.isNegative()) {
      close();
      return;
    }
    List<Runnable> each = new ArrayList<>(leases.size());
    for (int i = leases.size() - 1; i >= 0; i--) {
      LockLease lease = leases.get(i);
      each.add(() -> lease.closeAfter(keep));
    }
    runEach(each, other -> other);
  }

  /**
   * Releases every lock, in the reverse of the order they were taken, even if one fails; then
   * throws {@link LockLostException} if any was lost (naming the first, the others suppressed),
   * else the first other failure.
   */
  @Override
  public void close() {
    // Every release goes out before any is waited for: one round trip's wait, not one per lock.
    List<Runnable> finishing = new ArrayList<>(leases.size());
    for (int i = leases.size() - 1; i >= 0; i--) {
      LockLease lease = leases.get(i);
      if (lease instanceof HeldLease held) {
        CompletableFuture<Release.Outcome> done = held.keeper.changes().startClose(held);
        finishing.add(() -> held.keeper.changes().finishRelease(done, held.lockName()));
      } else {
        finishing.add(lease::close);
      }
    }
    runEach(finishing, other -> other instanceof RelockException ? other : new RelockException("could not release " + name, other));
  }

  /**
   * Runs every step even if one fails; then throws the first {@link LockLostException} (the other
   * failures suppressed in it), else the first other failure as {@code otherwise} gives it.
   */
  private static void runEach(List<Runnable> steps, java.util.function.UnaryOperator<RuntimeException> otherwise) {
    RuntimeException lost = null;
    RuntimeException other = null;
    for (Runnable step : steps) {
      try {
        step.run();
      } catch (LockLostException e) {
        if (lost == null) {
          lost = e;
        } else {
          lost.addSuppressed(e);
        }
      } catch (RuntimeException e) {
        if (other == null) {
          other = e;
        } else {
          other.addSuppressed(e);
        }
      }
    }
    if (lost != null) {
      if (other != null) {
        lost.addSuppressed(other);
      }
      throw lost;
    }
    if (other != null) {
      throw otherwise.apply(other);
    }
  }

  @Override
  public String toString() {
    return "LockLease[" + name + ", tokens " + fencingTokens() + "]";
  }
}
